import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Synchronization

/// A KARTE in-app messaging channel: the two pure machines of KarteCore driven on the host's network,
/// clock and store.
///
/// - ``KarteTrackingMachine`` owns the pv ids, batching and retries: its requests go out gzipped on
///   `host.network`, several at once (a slow answer must not hold a later `view` back), and its answers
///   come back to it.
/// - ``KarteActionsMachine`` owns what is shown: its `show`/`close` become the host's in-app action
///   events (desktop notifications), its will/did steps D-Bus signals, and the events it tracks back
///   (`message_open`, `_message_suppressed`, …) go straight into the tracking machine in the same step.
///
/// State is under one lock (``ChannelDriver``); the host's events and the store's writes go, in order,
/// through the kit's ``OrderedWorker``, which ``run()`` runs for the channel's life next to the senders.
final class KarteActionsChannel: Channel, ChannelDriver {
    static let pluginVersion = "0.1.0"
    static let bundleID = "org.attendant.Attendant1"

    let configuration: KarteActionsConfiguration
    let host: any ChannelHost
    let driverState = DriverState(State())
    let worker = OrderedWorker<Work>()
    let timers: ChannelTimers<KarteTrackingMachine.TimerKind>
    /// The deadline of each `actions-variables --fetch` caller, by waiter id.
    let fetchDeadlines: ChannelTimers<UInt64>
    let sends: AsyncStream<Send>
    let sendQueue: AsyncStream<Send>.Continuation

    init(configuration: KarteActionsConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.timers = ChannelTimers(clock: host.clock)
        self.fetchDeadlines = ChannelTimers(clock: host.clock)
        (self.sends, self.sendQueue) = AsyncStream.makeStream(of: Send.self)
    }

    struct State: Sendable {
        /// Made by the first `listen()` (it needs the stored visitor id) and kept for the daemon's run:
        /// `original_pv_id` is fixed per run.
        var tracking: KarteTrackingMachine?
        var actions = KarteActionsMachine()
        var appKey: String?
        var listening = false
        var background = false
        /// Callers of `actions-variables --fetch`, waiting for the answer to `_fetch_variables`.
        var fetchWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// Requests that carry `_fetch_variables`, by the machine's request id.
        var fetchRequests: Set<UInt64> = []
        var counters = Counters()
    }

    struct Counters: Sendable {
        var requestsSent = 0
        var answers = 0
        var failures = 0
        var dropped = 0
        var unreadable = 0
        var shown = 0
    }

    /// One track request to send: the machine's id and its body, uncompressed.
    struct Send: Sendable {
        var requestID: UInt64
        var body: [UInt8]
        var appKey: String
    }

    /// What a step leaves to be done once the lock is released.
    enum Effect: Sendable {
        case emit(ChannelEvent)
        case arm(TimerID<KarteTrackingMachine.TimerKind>, after: Duration)
        case send(Send)
        case store(String?, key: String)
        case log(Logger.Level, String)
        case resume(CheckedContinuation<Bool, Never>, Bool)
    }

    /// Work done in order by ``run()``.
    enum Work: Sendable {
        case emit(ChannelEvent)
        case store(String?, key: String)
        case log(Logger.Level, String)
    }

    enum StoreKey {
        static let visitorID = "visitor-id"
        static let appVersion = "app-version"
        static let suppressed = "suppressed"
        static let variables = "variables"
        /// Prefix of the events tracked and not yet answered, each under its local id.
        static let pendingEvent = "pending-event/"
    }

    static let appKeySecret = "app-key"

    func perform(_ effect: Effect) {
        switch effect {
        case .emit(let event):
            self.worker.enqueue(.emit(event))
        case .store(let value, let key):
            self.worker.enqueue(.store(value, key: key))
        case .log(let level, let message):
            self.worker.enqueue(.log(level, message))
        case .arm(let id, let delay):
            self.timers.arm(id.kind, after: delay) { [weak self] _ in self?.trackingTimerFired(id) }
        case .send(let send):
            self.sendQueue.yield(send)
        case .resume(let continuation, let value):
            continuation.resume(returning: value)
        }
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.worker.run { work in await self.carryOut(work) } }
            for await send in self.sends {
                group.addTask { await self.deliver(send) }
            }
        }
    }

    private func carryOut(_ work: Work) async {
        switch work {
        case .emit(let event):
            self.host.emit(event)
        case .store(let value, let key):
            do {
                try await self.host.store.setValue(value, forKey: key)
            } catch {
                self.host.logger.error("karte-actions: cannot store \(key): \(error)")
            }
        case .log(let level, let message):
            self.host.logger.log(level: level, "karte-actions: \(message)")
        }
    }

    // MARK: Channel

    func listen() async throws {
        let appKey = try await self.appKey()
        let visitorID = try await self.storedOrNew(StoreKey.visitorID)
        let previousVersion = try await self.host.store.value(forKey: StoreKey.appVersion)
        let suppressed = self.configuration.suppressPersists ? try await self.host.store.value(forKey: StoreKey.suppressed) == "true" : false
        let variables = try await self.host.store.value(forKey: StoreKey.variables)
        let unanswered = try await self.unansweredEvents()
        let systemInfo = LinuxMachineInfo.systemInfo(bundleID: Self.bundleID)
        let now = self.host.now()
        self.step { state, effects in
            state.appKey = appKey
            state.listening = true
            guard state.tracking == nil else { return }
            let appInfo = KarteAppInfo(versionName: self.configuration.appVersion, versionCode: self.configuration.appVersion, sdkVersion: Self.pluginVersion, system: systemInfo)
            state.tracking = KarteTrackingMachine(configuration: .init(appInfo: appInfo), visitorID: visitorID)
            if suppressed { _ = state.actions.suppress() }
            if !unanswered.isEmpty {
                self.handle(state.tracking!.resend(unanswered), state: &state, effects: &effects)
                effects.append(.log(.notice, "sending again \(unanswered.count) event(s) of an earlier run that were never answered (marked _retry)"))
            }
            if let variables { state.actions.restoreVariables(fromJSON: variables) }
            self.handle(state.tracking!.launch(version: self.configuration.appVersion, previousVersion: previousVersion, now: now), state: &state, effects: &effects)
            if previousVersion != self.configuration.appVersion { effects.append(.store(self.configuration.appVersion, key: StoreKey.appVersion)) }
            if let view = self.configuration.startView, let actions = try? state.tracking!.view(name: view, now: now) {
                self.handle(actions, state: &state, effects: &effects)
            }
            effects.append(.log(.info, "tracking to \(self.configuration.trackURL) as visitor \(visitorID)\(suppressed ? "; suppressed (kept from the last run)" : "")"))
        }
    }

    func stopListening() async {
        // What is tracked goes out before the channel is dropped (the batching window is short), and the
        // daemon waits a little for the answers, sending at once what they bring (`_message_ready`), so
        // that a clean stop leaves nothing for the next run to send again.
        self.withState { $0.listening = false }
        var waited: Duration = .zero
        while waited < Self.stopGrace {
            let busy = self.step { state, effects -> Bool in
                guard let actions = state.tracking?.flushNow() else { return false }
                self.handle(actions, state: &state, effects: &effects)
                return (state.tracking?.requestsInFlight ?? 0) > 0
            }
            guard busy else { break }
            try? await self.host.clock.sleep(for: .milliseconds(20))
            waited += .milliseconds(20)
        }
        await self.worker.drain()
    }

    /// How long a stopping channel waits for its last requests' answers.
    static let stopGrace: Duration = .seconds(3)

    func keepAlive() async throws {
        // Nothing to keep: the track API is request and answer. A refused app key shows in the answers.
        let state = self.withState { ($0.listening, $0.appKey) }
        guard state.0, state.1 != nil else { throw ChannelError(.transient, "karte-actions: not listening") }
    }

    func tokenDidChange(_ token: ChannelToken) async {
        guard Self.isValidAppKey(token.value) else {
            self.host.logger.error("karte-actions: the new token is not a KARTE app key (\(token.value.count) characters, 32 expected); keeping the old one")
            return
        }
        self.withState { $0.appKey = token.value }
    }

    func applicationStateDidChange(_ state: ApplicationState) async {
        let now = self.host.now()
        self.step { channel, effects in
            guard channel.tracking != nil, (state == .background) != channel.background else { return }
            channel.background = state == .background
            let actions = state == .background ? channel.tracking!.background(now: now) : channel.tracking!.foreground(now: now)
            self.handle(actions, state: &channel, effects: &effects)
        }
    }

    /// The events an earlier run kept and never saw answered (it crashed or was killed).
    private func unansweredEvents() async throws -> [KarteRecordedEvent] {
        let values = try await self.host.store.allValues()
        return values.compactMap { key, text in
            guard key.hasPrefix(StoreKey.pendingEvent), let json = try? JSONValue.parse(Array(text.utf8)) else { return nil }
            return KarteRecordedEvent(persisted: json)
        }
    }

    // MARK: App key and ids

    /// The app key: the channel's token, else `app-key` in its secrets. Never logged: messages say only
    /// where a key was looked for and how long a wrong one is.
    private func appKey() async throws -> String {
        switch await self.host.tokenState() {
        case .available(let token):
            guard Self.isValidAppKey(token.value) else {
                throw ChannelError(.configuration, "karte-actions: the channel's token is not a KARTE app key (\(token.value.count) characters; an app key has 32)")
            }
            return token.value
        case .unavailable(let reason):
            throw ChannelError(.authentication, "karte-actions: no app key yet: \(reason)")
        default:
            break
        }
        let secret: String?
        do {
            secret = try await self.host.secrets.secret(forKey: Self.appKeySecret)
        } catch {
            throw ChannelError(.configuration, "karte-actions: cannot read the secrets file: \(error)")
        }
        guard let secret else {
            throw ChannelError(
                .configuration,
                "karte-actions: no app key: give the channel a token source (token-file, token-command) that yields it, or put it in secrets.json as {\"\(self.host.channelName)\": {\"\(Self.appKeySecret)\": \"…\"}}"
            )
        }
        guard Self.isValidAppKey(secret) else {
            throw ChannelError(.configuration, "karte-actions: the app-key in secrets.json is not a KARTE app key (\(secret.count) characters; an app key has 32)")
        }
        return secret
    }

    /// KARTE's check (`AppKey.isValid`): 32 characters. Printable ASCII too, since it goes into a header.
    static func isValidAppKey(_ key: String) -> Bool {
        key.utf8.count == 32 && key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    private func storedOrNew(_ key: String) async throws -> String {
        do {
            if let stored = try await self.host.store.value(forKey: key), !stored.isEmpty { return stored }
            var random = SystemRandomNumberGenerator()
            let made = KarteID.random(using: &random)
            try await self.host.store.setValue(made, forKey: key)
            return made
        } catch {
            throw ChannelError(.configuration, "karte-actions: cannot read or keep the visitor id in the state database: \(error)")
        }
    }
}
