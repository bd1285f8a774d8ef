package import AttendantPluginAPI
package import AttendantPluginKit

/// The KarteActions channel's whole state as one pure value that the kit's ``SessionDriver`` drives: the
/// two machines and what lies between them and the host.
///
/// - ``KarteTrackingMachine`` owns the pv ids, batching and retries: its requests become ``Work/send``,
///   sent several at once by the channel (a slow answer must not hold a later `view` back), and their
///   outcomes come back with ``completed(_:_:now:)``. What it records is kept in the store until answered
///   (its journal), so a crash loses no event.
/// - ``KarteActionsMachine`` owns what is shown: its `show`/`close` become the host's in-app action
///   events (desktop notifications), its will/did steps D-Bus signals, and the events it tracks back
///   (`message_open`, `_message_suppressed`, …) go straight into the tracking machine in the same step.
///
/// The user's requests are answered with ``SessionAction/replied(_:_:)``: at once, or (a variables
/// fetch) when the request carrying `_fetch_variables` ends or its deadline passes.
package struct KarteSession: ChannelSession {
    package typealias Action = SessionAction<Timer, Work>
    typealias Tracking = KarteTrackingMachine

    package enum Timer: Hashable, Sendable {
        /// The tracking machine's timer of this kind (the last arming's id is handed back).
        case tracking(KarteTrackingMachine.TimerKind)
        /// A variables fetch's deadline.
        case fetch(UInt64)
        /// How long a stopping channel waits for its last answers.
        case stopGrace
    }

    package enum Work: Sendable {
        /// POST one track request (the body uncompressed) with the app key; answer with
        /// ``completed(_:_:now:)``.
        case send(requestID: UInt64, body: [UInt8], appKey: String)
        /// Open a link of a shown action by the desktop's link policy; answer with ``opened(_:_:)``.
        case open(requestID: UInt64, url: String)
    }

    /// What the configuration decides about the user's requests.
    package struct Settings: Sendable {
        /// `suppress` survives a daemon restart (the SDKs keep it in memory).
        package var suppressPersists: Bool
        /// How long `actions-variables --fetch` waits for its request's answer.
        package var fetchTimeout: Duration

        package init(suppressPersists: Bool = false, fetchTimeout: Duration = .seconds(11)) {
            self.suppressPersists = suppressPersists
            self.fetchTimeout = fetchTimeout
        }
    }

    /// Keeps `value` under `key` of the channel's store (nil removes it).
    static func store(_ value: String?, key: String) -> Action {
        .write(StoreWrite(.store, key: key, value: value, what: "the channel's \(key)"))
    }

    /// Where the channel's state is kept in its store.
    package enum StoreKey {
        package static let visitorID = "visitor-id"
        package static let appVersion = "app-version"
        package static let suppressed = "suppressed"
        package static let variables = "variables"
        /// Prefix of the events tracked and not yet answered, each under its local id.
        package static let pendingEvent = "pending-event/"
    }

    /// How a track request ended.
    package enum Outcome: Sendable {
        case answer(status: Int, body: [UInt8])
        /// Failed in a way that spends one of the request's retries.
        case failure(String)
        /// No answer at all (no name, no connection, nothing in time): the network's failure, which spends
        /// no retry (``KarteTrackingMachine/requestUnanswered(_:reason:now:)``).
        case unanswered(String)
        /// A 2xx whose body cannot even be unpacked: the reason names size and kind, never content.
        case unreadable(status: Int, reason: String)
    }

    package struct Counters: Sendable {
        package var requestsSent = 0
        package var answers = 0
        package var failures = 0
        package var dropped = 0
        package var unreadable = 0
        package var shown = 0
    }

    /// What `listen()` found in the store and the configuration.
    package struct Start: Sendable {
        package var appKey: String
        package var appInfo: KarteAppInfo
        package var visitorID: String
        package var appVersion: String
        package var previousVersion: String?
        package var suppressed: Bool
        package var variables: String?
        package var unanswered: [KarteRecordedEvent]
        package var startView: String?

        package init(
            appKey: String,
            appInfo: KarteAppInfo,
            visitorID: String,
            appVersion: String,
            previousVersion: String?,
            suppressed: Bool,
            variables: String?,
            unanswered: [KarteRecordedEvent],
            startView: String?
        ) {
            self.appKey = appKey
            self.appInfo = appInfo
            self.visitorID = visitorID
            self.appVersion = appVersion
            self.previousVersion = previousVersion
            self.suppressed = suppressed
            self.variables = variables
            self.unanswered = unanswered
            self.startView = startView
        }

        /// The count that ends a local id (`<original_pv_id>-<n>`): the order events were recorded in.
        static func number(_ localID: String) -> Int {
            localID.split(separator: "-").last.flatMap { Int($0) } ?? 0
        }

        /// What the channel's store holds (every value, read at once): the version last run, suppress
        /// (restored only when the session's settings say it persists), the campaign variables, and the
        /// events never seen answered, in the order they were recorded. An entry that does not parse is
        /// left out.
        package init(
            appKey: String,
            appInfo: KarteAppInfo,
            visitorID: String,
            appVersion: String,
            stored values: [String: String],
            startView: String?
        ) {
            let unanswered = values.compactMap { key, text -> KarteRecordedEvent? in
                guard key.hasPrefix(StoreKey.pendingEvent), let json = try? JSONValue.parse(Array(text.utf8)) else { return nil }
                return KarteRecordedEvent(persisted: json)
            }
            self.init(
                appKey: appKey,
                appInfo: appInfo,
                visitorID: visitorID,
                appVersion: appVersion,
                previousVersion: values[StoreKey.appVersion],
                suppressed: values[StoreKey.suppressed] == "true",
                variables: values[StoreKey.variables],
                unanswered: unanswered.sorted { ($0.date, Self.number($0.localID)) < ($1.date, Self.number($1.localID)) },
                startView: startView
            )
        }
    }

    /// Made by the first ``start(_:trackURL:now:)`` (it needs the stored visitor id) and kept for the
    /// daemon's run: `original_pv_id` is fixed per run.
    package internal(set) var tracking: KarteTrackingMachine?
    package internal(set) var actions = KarteActionsMachine()
    package var appKey: String?
    package var listening = false
    package internal(set) var background = false
    package internal(set) var counters = Counters()
    /// Where track requests go, for messages.
    var trackURL = ""
    /// The last arming of each of the tracking machine's timers.
    var armed: [KarteTrackingMachine.TimerKind: TimerID<KarteTrackingMachine.TimerKind>] = [:]
    /// Callers of `actions-variables --fetch`, waiting for the answer to `_fetch_variables`.
    var fetchWaiters: Set<UInt64> = []
    /// Requests that carry `_fetch_variables`, by the machine's request id.
    var fetchRequests: Set<UInt64> = []
    /// The stop (``stop(_:grace:now:)``) waiting for the last answers.
    var stopping: UInt64?
    /// Clicks whose link the host is opening: what their callers hear besides how it went.
    var opening: [UInt64: [String: String]] = [:]
    let settings: Settings

    package init(settings: Settings = Settings()) {
        self.settings = settings
    }

    // MARK: The channel's life

    /// `listen()`: the tracking machine on the first call (events an earlier run never saw answered are
    /// sent again, marked `_retry`), the launch events, and the start view.
    package mutating func start(_ start: Start, trackURL: String, now: UnixTime) -> [Action] {
        self.appKey = start.appKey
        self.listening = true
        self.trackURL = trackURL
        guard self.tracking == nil else { return [] }
        self.tracking = KarteTrackingMachine(configuration: .init(appInfo: start.appInfo), visitorID: start.visitorID)
        var out: [Action] = []
        if start.suppressed && self.settings.suppressPersists { _ = self.actions.suppress() }
        if !start.unanswered.isEmpty {
            out += self.carryOut(self.tracking!.resend(start.unanswered), now: now)
            out.append(.log(.notice, "sending again \(start.unanswered.count) event(s) of an earlier run that were never answered (marked _retry)"))
        }
        if let variables = start.variables { self.actions.restoreVariables(fromJSON: variables) }
        out += self.carryOut(self.tracking!.launch(version: start.appVersion, previousVersion: start.previousVersion, now: now), now: now)
        if start.previousVersion != start.appVersion { out.append(Self.store(start.appVersion, key: StoreKey.appVersion)) }
        if let view = start.startView, let viewed = try? self.tracking!.view(name: view, now: now) {
            out += self.carryOut(viewed, now: now)
        }
        let suppressed = start.suppressed ? "; suppressed (kept from the last run)" : ""
        out.append(.log(.info, "tracking to \(trackURL) as visitor \(start.visitorID)\(suppressed)"))
        return out
    }

    /// What is tracked goes out now.
    package mutating func flushNow(now: UnixTime) -> [Action] {
        guard let flushed = self.tracking?.flushNow() else { return [] }
        return self.carryOut(flushed, now: now)
    }

    /// Requests are under way.
    package var busy: Bool { (self.tracking?.requestsInFlight ?? 0) > 0 }

    /// `stopListening()`, as request `id`: what is tracked goes out at once (the batching window is short),
    /// and the stop is over once every request is answered, what the answers bring (`_message_ready`)
    /// sent too, or when `grace` has passed. A clean stop leaves nothing for the next run to send again.
    package mutating func stop(_ id: UInt64, grace: Duration, now: UnixTime) -> [Action] {
        self.listening = false
        self.stopping = id
        let flushed = self.flushNow(now: now)
        return flushed + (self.stopSettled() ?? [.setTimer(.stopGrace, after: grace)])
    }

    /// The stop's reply once nothing is under way; nil while something is.
    mutating func stopSettled() -> [Action]? {
        guard let id = self.stopping, !self.busy else { return nil }
        self.stopping = nil
        return [.cancelTimer(.stopGrace), .replied(id, .success(.done))]
    }

    /// The network came back or changed (the host's keep-alive): what got no answer goes again now.
    package mutating func networkChanged(now: UnixTime) -> [Action] {
        guard let resent = self.tracking?.networkChanged(), !resent.isEmpty else { return [] }
        return self.carryOut(resent, now: now)
    }

    /// The desktop went to the background or came back.
    package mutating func applicationState(background: Bool, now: UnixTime) -> [Action] {
        guard self.tracking != nil, background != self.background else { return [] }
        self.background = background
        return self.carryOut(background ? self.tracking!.background(now: now) : self.tracking!.foreground(now: now), now: now)
    }

    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .tracking(let kind):
            guard self.tracking != nil, let id = self.armed.removeValue(forKey: kind) else { return [] }
            return self.carryOut(self.tracking!.timerFired(id), now: now)
        case .fetch(let id):
            guard self.fetchWaiters.remove(id) != nil else { return [] }
            return [.replied(id, .success(self.variablesReply(fetched: false)))]
        case .stopGrace:
            guard let id = self.stopping else { return [] }
            self.stopping = nil
            let unanswered = self.tracking?.requestsInFlight ?? 0
            return [
                .log(.notice, "stopped with \(unanswered) track request(s) unanswered; their events are sent again at the next start"),
                .replied(id, .success(.done)),
            ]
        }
    }

    package mutating func forgetRequest(_ id: UInt64) {
        self.fetchWaiters.remove(id)
        self.opening[id] = nil
        if self.stopping == id { self.stopping = nil }
    }

    /// A track request ended.
    package mutating func completed(_ requestID: UInt64, _ outcome: Outcome, now: UnixTime) -> [Action] {
        guard self.tracking != nil else { return [] }
        var out: [Action] = []
        let tracked: [Tracking.Action]
        switch outcome {
        case .answer(let status, let body):
            if status == 401 || status == 403 {
                out.append(
                    .emit(
                        .stoppedListening(
                            ChannelError(.authentication, "karte-actions: KARTE refused the app key (HTTP \(status)) at \(self.trackURL)")
                        )
                    )
                )
            }
            tracked = self.tracking!.requestCompleted(requestID, status: status, body: body)
        case .failure(let reason):
            self.counters.failures += 1
            tracked = self.tracking!.requestFailed(requestID, reason: reason)
        case .unanswered(let reason):
            self.counters.failures += 1
            tracked = self.tracking!.requestUnanswered(requestID, reason: reason, now: now)
        case .unreadable(let status, let reason):
            // The server did answer: not retried, and nothing of it is used.
            tracked = self.tracking!.requestUnreadable(requestID, reason: "HTTP \(status), \(reason)")
        }
        out += self.carryOut(tracked, now: now)
        guard self.stopping != nil else { return out }
        return out + self.flushNow(now: now) + (self.stopSettled() ?? [])
    }

    // MARK: Requests

    /// A tracking request as request `id`: refused input changes nothing; the caller hears the keys it left.
    package mutating func track(
        _ id: UInt64,
        now: UnixTime,
        _ body: (inout KarteTrackingMachine, UnixTime) throws(KarteFieldError) -> [KarteTrackingMachine.Action],
        reply: (KarteKeys) -> [String: String]
    ) throws(ChannelError) -> [Action] {
        guard self.listening, self.tracking != nil else { throw Self.notListening }
        let tracked: [Tracking.Action]
        do {
            tracked = try body(&self.tracking!, now)
        } catch {
            throw ChannelError(.invalidArgument, "\(error)")
        }
        return self.carryOut(tracked, now: now) + [.replied(id, .success(.fields(reply(self.tracking!.keys))))]
    }

    /// Dismisses the action shown (or all), as request `id`.
    package mutating func dismiss(_ id: UInt64, actionID: String?, now: UnixTime) throws(ChannelError) -> [Action] {
        let before = self.actions.shown.count
        if let actionID, !self.actions.shown.contains(where: { $0.message.actionID == actionID }) {
            throw ChannelError(.illegalState, "no action \(actionID) is shown; see attendantctl actions list")
        }
        let out = self.handle(self.actions.dismiss(actionID: actionID), now: now)
        return out + [.replied(id, .success(.fields(["dismissed": String(before - self.actions.shown.count)])))]
    }

    /// Suppresses actions (kept across restarts when the settings say so), as request `id`.
    mutating func suppress(_ id: UInt64, now: UnixTime) -> [Action] {
        let before = self.actions.shown.count
        var out = self.handle(self.actions.suppress(), now: now)
        if self.settings.suppressPersists { out.append(Self.store("true", key: StoreKey.suppressed)) }
        out.append(.log(.info, "suppressed: actions are not shown until unsuppress"))
        return out + [.replied(id, .success(.fields(["suppressed": "true", "dismissed": String(before)])))]
    }

    mutating func unsuppress(_ id: UInt64) -> [Action] {
        self.actions.unsuppress()
        var out: [Action] = self.settings.suppressPersists ? [Self.store(nil, key: StoreKey.suppressed)] : []
        out.append(.log(.info, "unsuppressed: actions are shown again"))
        return out + [.replied(id, .success(.fields(["suppressed": "false"])))]
    }

    /// A link of a shown action was followed: `message_click`, and a soft reset unless its target is `_blank`.
    mutating func linkClicked(actionID: String, url: String, target: String, now: UnixTime) -> [Action] {
        self.handle(self.actions.linkClicked(actionID: actionID, url: url, target: target), now: now)
    }

    /// `actions-variables`, as request `id`: with `fetch`, `_fetch_variables` is tracked and the caller
    /// waits until its request ends (or `timeout` passes); the variables either way.
    package mutating func variables(_ id: UInt64, fetch: Bool, timeout: Duration, now: UnixTime) -> [Action] {
        guard fetch, self.listening, self.tracking != nil else { return [.replied(id, .success(self.variablesReply(fetched: false)))] }
        self.fetchWaiters.insert(id)
        let tracked = (try? self.tracking!.track(KarteEvent(name: KarteEventName.fetchVariables), now: now)) ?? []
        return self.carryOut(tracked, now: now) + [.setTimer(.fetch(id), after: timeout)]
    }

    func variablesReply(fetched: Bool) -> ChannelReply {
        .fields(["variables": KarteActionsMachine.json(of: self.actions.variables).text, "fetched": fetched ? "true" : "false"])
    }

    /// `actions-list`: the actions shown, whether suppressed, and the ids.
    package var listFields: [String: String] {
        let actions = self.actions.shown.map { shown -> JSONValue in
            .object([
                "id": .string(shown.message.actionID),
                "campaign_id": .string(shown.message.campaignID),
                "shorten_id": .string(shown.message.shortenID),
                "title": .string(shown.content.title),
                "body": .string(shown.content.body),
                "links": .array(
                    shown.content.links.map { .object(["label": .string($0.label), "url": .string($0.url), "target": .string($0.target)]) }
                ),
            ])
        }
        let keys = self.tracking?.keys
        return [
            "actions": JSONValue.array(actions).text,
            "suppressed": self.actions.isSuppressed ? "true" : "false",
            "visitor_id": keys?.visitorID ?? "",
            "pv_id": keys?.pvID ?? "",
            "original_pv_id": keys?.originalPVID ?? "",
        ]
    }

    package static var notListening: ChannelError {
        ChannelError(.illegalState, "the channel is not listening yet (no app key, or it is starting); see attendantctl channels")
    }
}
