import AttendantPluginAPI
import AttendantPluginKit
import KarteCore

// The tracking machine's actions, the actions machine's, and the track requests on the network.

extension KarteActionsChannel {
    /// Carries out the tracking machine's actions within a step (`state.tracking` is set), then keeps
    /// what it recorded in the store and forgets what is over (the journal), so a crash loses no event.
    func handle(_ actions: [KarteTrackingMachine.Action], state: inout State, effects: inout [Effect]) {
        self.carryOut(actions, state: &state, effects: &effects)
        guard let journal = state.tracking?.takeJournal(), !journal.isEmpty else { return }
        for event in journal.recorded { effects.append(.store(event.persisted.text, key: StoreKey.pendingEvent + event.localID)) }
        for localID in journal.finished { effects.append(.store(nil, key: StoreKey.pendingEvent + localID)) }
    }

    private func carryOut(_ actions: [KarteTrackingMachine.Action], state: inout State, effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .arm(let id, let delay):
                effects.append(.arm(id, after: delay))
            case .send(let request, let body):
                guard let appKey = state.appKey else { continue }
                state.counters.requestsSent += 1
                if request.eventNames.contains(KarteEventName.fetchVariables) { state.fetchRequests.insert(request.id) }
                effects.append(.send(Send(requestID: request.id, body: body, appKey: appKey)))
            case .responseReceived(let request, let response, let isRetry):
                state.counters.answers += 1
                if !response.unknownFields.isEmpty {
                    let named = response.unknownFields.prefix(10).joined(separator: ", ") + (response.unknownFields.count > 10 ? ", …" : "")
                    effects.append(.log(.debug, "KARTE's answer to request \(request.id) has \(response.unknownFields.count) field(s) this plugin does not read, ignored: \(named)"))
                }
                self.settleFetch(request.id, answered: true, state: &state, effects: &effects)
                // A retried request's answer never shows anything (karte.md §1): the machine ignores it too.
                guard !isRetry, let tracking = state.tracking else { continue }
                let routed = state.actions.receive(response, for: request, current: tracking.keys, now: self.host.now())
                self.handle(routed, state: &state, effects: &effects)
            case .responseUnreadable(let request, let error):
                state.counters.unreadable += 1
                self.settleFetch(request.id, answered: false, state: &state, effects: &effects)
                effects.append(.log(.warning, "KARTE's answer to request \(request.id) (\(Self.describe(request))) was not used: \(error)"))
            case .dropped(let request, let reason):
                state.counters.dropped += 1
                self.settleFetch(request.id, answered: false, state: &state, effects: &effects)
                effects.append(.log(.warning, "request \(request.id) (\(Self.describe(request))) dropped: \(reason)"))
            case .pageChanged(let change):
                self.handle(state.actions.pageChanged(change), state: &state, effects: &effects)
            }
        }
    }

    /// Carries out the actions machine's actions within a step: what is shown becomes host events, what
    /// it tracks goes into the tracking machine at once.
    func handle(_ actions: [KarteActionsMachine.Action], state: inout State, effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .show(let shown):
                state.counters.shown += 1
                effects.append(.emit(.actionReceived(Self.inAppAction(shown))))
            case .close(let actionID, let reason):
                effects.append(.emit(.actionClosed(actionID: actionID, reason: reason.rawValue)))
            case .track(let event):
                guard state.tracking != nil else { continue }
                do {
                    let tracked = try state.tracking!.track(event, now: self.host.now())
                    self.handle(tracked, state: &state, effects: &effects)
                } catch {
                    effects.append(.log(.warning, "\(event.name) not tracked: \(error)"))
                }
            case .willAppear(let ref):
                effects.append(.emit(.actionLifecycle(Self.step(.willAppear, ref))))
            case .didAppear(let ref):
                effects.append(.emit(.actionLifecycle(Self.step(.didAppear, ref))))
            case .willDisappear(let ref, let reason):
                effects.append(.emit(.actionLifecycle(Self.step(.willDisappear, ref, reason: reason))))
            case .didDisappear(let ref, let reason):
                effects.append(.emit(.actionLifecycle(Self.step(.didDisappear, ref, reason: reason))))
            case .windowPresented:
                effects.append(.emit(.actionLifecycle(InAppActionLifecycle(phase: .windowPresented))))
            case .windowDismissed:
                effects.append(.emit(.actionLifecycle(InAppActionLifecycle(phase: .windowDismissed))))
            case .variablesChanged(let variables):
                effects.append(.store(KarteActionsMachine.json(of: variables).text, key: StoreKey.variables))
                effects.append(.log(.info, "variables now: \(variables.keys.sorted().joined(separator: ", "))"))
            case .messageOpenExpired(let ref, let age):
                effects.append(.log(.info, "action \(ref.actionID) shown without message_open: its answer is \(age) old (more than 180 s)"))
            case .skipped(let ref, let reason):
                effects.append(.log(.debug, "action \(ref.actionID) of campaign \(ref.campaignID) not shown: \(reason)"))
            }
        }
    }

    static func step(_ phase: InAppActionLifecycle.Phase, _ ref: KarteActionsMachine.ActionRef, reason: KarteActionsMachine.CloseReason? = nil) -> InAppActionLifecycle {
        InAppActionLifecycle(phase: phase, actionID: ref.actionID, campaignID: ref.campaignID, shortenID: ref.shortenID, reason: reason?.rawValue ?? "")
    }

    /// The host's view of a shown action: its text and links, and the whole message for D-Bus viewers.
    static func inAppAction(_ shown: KarteActionsMachine.ShownAction) -> InAppAction {
        var action = shown.inAppAction
        action.shortenID = shown.message.shortenID
        action.json = shown.message.json.text
        action.links = shown.content.links.map { InAppAction.Link(label: $0.label, url: $0.url, target: $0.target) }
        return action
    }

    /// `3 events: view, message_open, …` for logs: names, never values.
    static func describe(_ request: KarteTrackRequest) -> String {
        let names = request.eventNames
        let shown = names.prefix(4).joined(separator: ", ") + (names.count > 4 ? ", …" : "")
        return "\(names.count) event\(names.count == 1 ? "" : "s"): \(shown)"
    }

    // MARK: Timers

    func trackingTimerFired(_ id: TimerID<KarteTrackingMachine.TimerKind>) {
        self.step { state, effects in
            guard state.tracking != nil else { return }
            self.handle(state.tracking!.timerFired(id), state: &state, effects: &effects)
        }
    }

    // MARK: The network

    /// Sends one track request and hands the outcome to the machine. Runs concurrently with others.
    func deliver(_ send: Send) async {
        let body: [UInt8]
        do {
            body = try Gzip.compress(send.body)
        } catch {
            self.complete(send.requestID, .failure("cannot compress the body: \(error)"))
            return
        }
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.trackURL,
            headers: [
                NetworkHeader("X-KARTE-App-Key", send.appKey),
                NetworkHeader("Content-Type", "application/json"),
                NetworkHeader("Content-Encoding", "gzip"),
                NetworkHeader("Accept-Encoding", "gzip"),
            ],
            body: body,
            timeout: self.configuration.requestTimeout,
            // Gzip answers are unpacked up to the decoder's limit below; this bounds what is read at all.
            maximumResponseSize: KarteTrackResponse.defaultSizeLimit,
            usesCookies: false
        )
        do {
            let response = try await self.host.network.send(request)
            self.complete(send.requestID, self.answer(response))
        } catch {
            self.complete(send.requestID, .failure(error.kind == .tooLarge ? "the answer is larger than \(KarteTrackResponse.defaultSizeLimit) bytes" : error.message))
        }
    }

    enum Outcome: Sendable {
        case answer(status: Int, body: [UInt8])
        case failure(String)
        /// A 2xx whose body cannot even be unpacked: the reason names size and kind, never content.
        case unreadable(status: Int, reason: String)
    }

    private func answer(_ response: NetworkResponse) -> Outcome {
        guard response.header("Content-Encoding")?.lowercased() == "gzip" else {
            return .answer(status: response.status, body: response.body)
        }
        do {
            return .answer(status: response.status, body: try Gzip.decompress(response.body, limit: KarteTrackResponse.defaultSizeLimit))
        } catch {
            return .unreadable(status: response.status, reason: "a \(response.body.count)-byte body marked gzip could not be unpacked: \(error)")
        }
    }

    private func complete(_ requestID: UInt64, _ outcome: Outcome) {
        self.step { state, effects in
            guard state.tracking != nil else { return }
            let actions: [KarteTrackingMachine.Action]
            switch outcome {
            case .answer(let status, let body):
                if status == 401 || status == 403 {
                    effects.append(.emit(.stoppedListening(ChannelError(.authentication, "karte-actions: KARTE refused the app key (HTTP \(status)) at \(self.configuration.trackURL)"))))
                }
                actions = state.tracking!.requestCompleted(requestID, status: status, body: body)
            case .failure(let reason):
                state.counters.failures += 1
                actions = state.tracking!.requestFailed(requestID, reason: reason)
            case .unreadable(let status, let reason):
                // The server did answer: not retried, and nothing of it is used.
                actions = state.tracking!.requestUnreadable(requestID, reason: "HTTP \(status), \(reason)")
            }
            self.handle(actions, state: &state, effects: &effects)
        }
    }

    // MARK: Variables fetch

    /// Resumes the `actions-variables --fetch` callers once a request carrying `_fetch_variables` ends.
    func settleFetch(_ requestID: UInt64, answered: Bool, state: inout State, effects: inout [Effect]) {
        guard state.fetchRequests.remove(requestID) != nil else { return }
        for (_, waiter) in state.fetchWaiters { effects.append(.resume(waiter, answered)) }
        state.fetchWaiters = [:]
    }
}
