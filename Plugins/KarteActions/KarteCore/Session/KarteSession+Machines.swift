import AttendantPluginAPI
import AttendantPluginKit

// The two machines' actions, turned into the driver's.
extension KarteSession {
    /// The tracking machine's actions, then what it recorded kept in the store and what is over forgotten
    /// (its journal), so a crash loses no event.
    mutating func carryOut(_ tracked: [KarteTrackingMachine.Action], now: UnixTime) -> [Action] {
        var out: [Action] = []
        for action in tracked {
            switch action {
            case .arm(let id, let delay):
                self.armed[id.kind] = id
                out.append(.setTimer(.tracking(id.kind), after: delay))
            case .send(let request, let body):
                guard let appKey = self.appKey else { continue }
                self.counters.requestsSent += 1
                if request.eventNames.contains(KarteEventName.fetchVariables) { self.fetchRequests.insert(request.id) }
                out.append(.work(.send(requestID: request.id, body: body, appKey: appKey)))
            case .responseReceived(let request, let response, let isRetry):
                self.counters.answers += 1
                if !response.unknownFields.isEmpty {
                    let named = response.unknownFields.prefix(10).joined(separator: ", ") + (response.unknownFields.count > 10 ? ", …" : "")
                    out.append(
                        .log(
                            .debug,
                            "KARTE's answer to request \(request.id) has \(response.unknownFields.count) field(s) this plugin does not read, ignored: \(named)"
                        )
                    )
                }
                // A retried request's answer never shows anything (karte.md §1): the machine ignores it too.
                if !isRetry, let tracking = self.tracking {
                    out += self.handle(self.actions.receive(response, for: request, current: tracking.keys, now: now), now: now)
                }
                out += self.settleFetch(request.id, answered: true)
            case .responseUnreadable(let request, let error):
                self.counters.unreadable += 1
                out.append(
                    .log(
                        .warning,
                        "KARTE's answer to request \(request.id) (\(Self.describe(request))) from \(self.trackURL) was not used: \(error); the events reached KARTE and are not sent again, and the answer's actions are not shown. If this repeats, look at the campaigns KARTE answers these events with (their size and content)"
                    )
                )
                out += self.settleFetch(request.id, answered: false)
            case .dropped(let request, let reason):
                self.counters.dropped += 1
                out.append(.log(.warning, "request \(request.id) (\(Self.describe(request))) dropped: \(reason)"))
                out += self.settleFetch(request.id, answered: false)
            case .pageChanged(let change):
                out += self.handle(self.actions.pageChanged(change), now: now)
            }
        }
        guard let journal = self.tracking?.takeJournal(), !journal.isEmpty else { return out }
        for event in journal.recorded { out.append(Self.store(event.persisted.text, key: StoreKey.pendingEvent + event.localID)) }
        for localID in journal.finished { out.append(Self.store(nil, key: StoreKey.pendingEvent + localID)) }
        return out
    }

    /// The actions machine's actions: what is shown becomes host events, what it tracks goes into the
    /// tracking machine at once.
    mutating func handle(_ presented: [KarteActionsMachine.Action], now: UnixTime) -> [Action] {
        var out: [Action] = []
        for action in presented {
            switch action {
            case .show(let shown):
                self.counters.shown += 1
                out.append(.emit(.actionReceived(Self.inAppAction(shown))))
            case .close(let actionID, let reason):
                out.append(.emit(.actionClosed(actionID: actionID, reason: reason.rawValue)))
            case .track(let event):
                guard self.tracking != nil else { continue }
                do {
                    out += self.carryOut(try self.tracking!.track(event, now: now), now: now)
                } catch {
                    out.append(.log(.warning, "\(event.name) not tracked: \(error)"))
                }
            case .willAppear(let ref):
                out.append(.emit(.actionLifecycle(Self.step(.willAppear, ref))))
            case .didAppear(let ref):
                out.append(.emit(.actionLifecycle(Self.step(.didAppear, ref))))
            case .willDisappear(let ref, let reason):
                out.append(.emit(.actionLifecycle(Self.step(.willDisappear, ref, reason: reason))))
            case .didDisappear(let ref, let reason):
                out.append(.emit(.actionLifecycle(Self.step(.didDisappear, ref, reason: reason))))
            case .windowPresented:
                out.append(.emit(.actionLifecycle(InAppActionLifecycle(phase: .windowPresented))))
            case .windowDismissed:
                out.append(.emit(.actionLifecycle(InAppActionLifecycle(phase: .windowDismissed))))
            case .variablesChanged(let variables):
                out.append(Self.store(KarteActionsMachine.json(of: variables).text, key: StoreKey.variables))
                out.append(.log(.info, "variables now: \(variables.keys.sorted().joined(separator: ", "))"))
            case .messageOpenExpired(let ref, let age):
                out.append(.log(.info, "action \(ref.actionID) shown without message_open: its answer is \(age) old (more than 180 s)"))
            case .skipped(let ref, let reason):
                out.append(.log(.debug, "action \(ref.actionID) of campaign \(ref.campaignID) not shown: \(reason)"))
            }
        }
        return out
    }

    /// The `actions-variables --fetch` callers hear the variables once a request carrying
    /// `_fetch_variables` ends.
    mutating func settleFetch(_ requestID: UInt64, answered: Bool) -> [Action] {
        guard self.fetchRequests.remove(requestID) != nil else { return [] }
        defer { self.fetchWaiters = [] }
        return self.fetchWaiters.sorted().flatMap { id -> [Action] in
            [.cancelTimer(.fetch(id)), .replied(id, .success(self.variablesReply(fetched: answered)))]
        }
    }

    static func step(
        _ phase: InAppActionLifecycle.Phase,
        _ ref: KarteActionsMachine.ActionRef,
        reason: KarteActionsMachine.CloseReason? = nil
    ) -> InAppActionLifecycle {
        InAppActionLifecycle(
            phase: phase,
            actionID: ref.actionID,
            campaignID: ref.campaignID,
            shortenID: ref.shortenID,
            reason: reason?.rawValue ?? ""
        )
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
}
