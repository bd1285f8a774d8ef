/// What the daemon tells the user about one channel.
public struct ChannelStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        case starting, listening, recovering, failed, stopping, stopped
    }

    public var name: String
    public var plugin: String
    public var state: State
    /// The last error, or why the channel failed.
    public var detail: String?
    /// Retries are slower because the channel kept dropping soon after connecting.
    public var onProbation = false

    public init(name: String, plugin: String, state: State, detail: String? = nil) {
        self.name = name
        self.plugin = plugin
        self.state = state
        self.detail = detail
    }

    /// True once the first attempt to listen has concluded one way or the other.
    public var hasSettled: Bool { self.state != .starting }
}

extension ChannelStatus.State {
    init<R>(_ state: SupervisorStateMachine<R>.State) {
        switch state {
        case .stopped: self = .stopped
        case .starting(let attempt): self = attempt == 0 ? .starting : .recovering
        case .listening, .keepingAlive, .renewingBeforeKeepAlive: self = .listening
        case .waitingToRetry, .renewingToken: self = .recovering
        case .failed: self = .failed
        case .stopping: self = .stopping
        }
    }
}
