public import AttendantPluginAPI
import Synchronization

/// A fake channel that goes through the real plugin SPI and does what its script says, for testing
/// hosts, supervisors and anything else that drives channels.
///
/// ```swift
/// let channel = ScriptedChannel(host: host)
/// channel.script(listen: [.fail(ChannelError(.transient, "no route")), .succeed])
/// ```
public final class ScriptedChannel: Channel {
    /// What one call does.
    public enum Outcome: Sendable {
        case succeed
        case fail(ChannelError)
        /// Never returns until cancelled (sleeps on the host's clock).
        case hang
    }

    /// A call the channel received.
    public enum Call: Sendable, Hashable {
        case listen
        case stopListening
        case keepAlive
        case tokenDidChange(ChannelToken)
        case applicationStateDidChange(ApplicationState)
        case perform(ChannelRequest)
    }

    /// Where ``run()`` is: not called yet, running (until cancelled), or ended.
    public enum RunState: Sendable, Hashable {
        case notStarted, running, ended
    }

    private struct State {
        var runState = RunState.notStarted
        var listenScript: [Outcome] = []
        var keepAliveScript: [Outcome] = []
        var calls: [Call] = []
        var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    public let host: any ChannelHost
    public let settings: ChannelSettings
    private let state = Mutex(State())

    public init(host: any ChannelHost, settings: ChannelSettings = ChannelSettings([:])) {
        self.host = host
        self.settings = settings
    }

    /// Queues outcomes for the next calls of ``listen()`` and ``keepAlive()``; once a queue is empty,
    /// calls succeed.
    public func script(listen: [Outcome] = [], keepAlive: [Outcome] = []) {
        self.state.withLock { state in
            state.listenScript += listen
            state.keepAliveScript += keepAlive
        }
    }

    /// Every call so far, in order.
    public var calls: [Call] { self.state.withLock { $0.calls } }

    /// How many calls of one kind so far.
    public func count(_ matching: (Call) -> Bool) -> Int { self.calls.filter(matching).count }

    /// Returns once the channel has received at least `count` calls in all.
    public func waitForCalls(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = self.state.withLock { state in
                if state.calls.count >= count { return true }
                state.callWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Reports, as a real channel would, that it stopped listening.
    public func dropListening(_ error: ChannelError) {
        self.host.emit(.stoppedListening(error))
    }

    /// Raises an incoming contact.
    public func raise(_ contact: Contact) {
        self.host.emit(.incomingContact(contact))
    }

    // MARK: Channel

    public var runState: RunState { self.state.withLock { $0.runState } }

    /// Runs until cancelled, as a channel's background work does.
    public func run() async {
        self.state.withLock { $0.runState = .running }
        // Sleeps until cancelled: the host cancels `run()` when it drops the channel.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        self.state.withLock { $0.runState = .ended }
    }

    public func listen() async throws {
        try await self.run(self.record(.listen) { $0.listenScript.isEmpty ? .succeed : $0.listenScript.removeFirst() })
    }

    public func stopListening() async {
        _ = self.record(.stopListening) { _ in .succeed }
    }

    public func keepAlive() async throws {
        try await self.run(
            self.record(.keepAlive) { $0.keepAliveScript.isEmpty ? .succeed : $0.keepAliveScript.removeFirst() }
        )
    }

    public func tokenDidChange(_ token: ChannelToken) async {
        _ = self.record(.tokenDidChange(token)) { _ in .succeed }
    }

    public func applicationStateDidChange(_ state: ApplicationState) async {
        _ = self.record(.applicationStateDidChange(state)) { _ in .succeed }
    }

    public func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        _ = self.record(.perform(request)) { _ in .succeed }
        return .done
    }

    // MARK: Private

    private func record(_ call: Call, outcome: (inout State) -> Outcome) -> Outcome {
        let (outcome, ready) = self.state.withLock { state in
            state.calls.append(call)
            let count = state.calls.count
            let ready = state.callWaiters.filter { $0.count <= count }.map(\.continuation)
            state.callWaiters.removeAll { $0.count <= count }
            return (outcome(&state), ready)
        }
        for continuation in ready { continuation.resume() }
        return outcome
    }

    private func run(_ outcome: Outcome) async throws {
        switch outcome {
        case .succeed:
            return
        case .fail(let error):
            throw error
        case .hang:
            while true { try await self.host.clock.sleep(for: .seconds(86_400)) }
        }
    }
}

/// A plugin factory that makes ``ScriptedChannel``s and keeps them, so a test can script the channels
/// a host made from its configuration.
public final class ScriptedChannelFactory: ChannelPluginFactory {
    public let name: String
    public let kind: ChannelKind
    public let version = "1.0-test"
    private let made = Mutex<[String: ScriptedChannel]>([:])
    private let prepare: @Sendable (ScriptedChannel) -> Void

    /// - Parameter prepare: called with every new channel before the host sees it, to script it.
    public init(
        name: String = "scripted",
        kind: ChannelKind = .voice,
        prepare: @escaping @Sendable (ScriptedChannel) -> Void = { _ in }
    ) {
        self.name = name
        self.kind = kind
        self.prepare = prepare
    }

    /// The channel most recently made for the channel named `channelName`.
    public func channel(named channelName: String) -> ScriptedChannel? {
        self.made.withLock { $0[channelName] }
    }

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        let channel = ScriptedChannel(host: host, settings: settings)
        self.prepare(channel)
        self.made.withLock { $0[host.channelName] = channel }
        return channel
    }
}
