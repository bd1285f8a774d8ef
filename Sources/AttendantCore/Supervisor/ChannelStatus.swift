/// What the daemon tells the user about one channel.
package struct ChannelStatus: Sendable, Equatable {
    package enum State: String, Sendable {
        case starting, listening, recovering, failed, stopping, stopped
        /// Listening, but the session is in the background and the channel closed its connection there
        /// (a chat: see ``ChannelSupervisor/Configuration/disconnectsInBackground``); foreground brings it
        /// back. Not a loss and not a failure, but it does not listen either.
        case background
    }

    /// Why a `failed` channel gave up: what the user has to do before it can listen again.
    package enum FailureReason: String, Sendable {
        /// The channel's credentials were refused and a new token did not help: sign in again.
        case signInNeeded = "sign-in-needed"
        /// The channel cannot work with its settings or plugin: fix the configuration.
        case configuration
    }

    package var name: String
    package var plugin: String
    package var state: State
    /// The last error, or why the channel failed.
    package var detail: String?
    /// Why the channel failed; nil unless `state` is `failed`.
    package var failure: FailureReason?
    /// Retries are slower because the channel kept dropping soon after connecting.
    package var onProbation = false

    package init(name: String, plugin: String, state: State, detail: String? = nil, failure: FailureReason? = nil) {
        self.name = name
        self.plugin = plugin
        self.state = state
        self.detail = detail
        self.failure = failure
    }

    /// True once the first attempt to listen has concluded one way or the other.
    package var hasSettled: Bool { self.state != .starting }
}

extension ChannelStatus.FailureReason {
    init<R>(_ reason: SupervisorStateMachine<R>.Failure.Reason) {
        switch reason {
        case .signInNeeded: self = .signInNeeded
        case .configuration: self = .configuration
        }
    }
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
