import AttendantPluginAPI
import AttendantPluginKit

/// Showing and closing: the SDK's resets, links, dismiss and suppress (karte.md §2).
extension KarteActionsMachine {
    mutating func show(_ message: KarteMessage, ref: ActionRef, now: UnixTime) -> [Action] {
        let action = ShownAction(message: message, content: KarteActionContent(content: message.action.content))
        var actions: [Action] = [.willAppear(ref)]
        if self.shown.isEmpty { actions.append(.windowPresented) }
        self.shown.append(action)
        actions += [.show(action), .didAppear(ref)]
        if let timestamp = message.action.responseTimestamp.flatMap(KarteTimestamp.parse), now - timestamp > self.configuration.messageOpenExpiry {
            actions.append(.messageOpenExpired(ref, age: now - timestamp))
        } else {
            actions.append(.track(KarteEvent(name: KarteEventName.messageOpen, values: ["message": ref.messageValue])))
        }
        return actions
    }

    /// The pv_id changed: a soft reset when the change says so (not on the run's first view).
    package mutating func pageChanged(_ change: KartePageChange) -> [Action] {
        change.isReset ? self.closeAll(reason: .soft) : []
    }

    /// The person followed a link of a shown action: `message_click`, then a soft reset unless the link's
    /// target is `_blank`. The reset closes every shown action, not only the clicked one: the SDKs show all
    /// messages in one overlay page, and a link that is not `_blank` resets that page's state
    /// (plaidev/karte-ios-sdk `KarteInAppMessaging/View/IAMWebView.swift`, `openURL(_:isReset:)` calls
    /// `reset(mode: .soft)`, `tracker.resetPageState()`; Android resets on the Activity pause that follows,
    /// `IAMProcessor.kt` `onActivityPaused`). Whether and how the URL opens is the driver's business, and a
    /// link its policy refuses never gets here (``KarteSession/opened(_:_:now:)``).
    package mutating func linkClicked(actionID: String, url: String, target: String?) -> [Action] {
        guard let action = self.shown.first(where: { $0.message.actionID == actionID }) else { return [] }
        let click = KarteEvent(name: KarteEventName.messageClick, values: ["message": action.ref.messageValue, "url": .string(url)])
        return [.track(click)] + (target == "_blank" ? [] : self.closeAll(reason: .click))
    }

    /// Closes one shown action (the person closed its notification) or, with nil, all of them (the SDK's
    /// `dismiss()`, a hard reset); each gets `message_close`.
    package mutating func dismiss(actionID: String? = nil) -> [Action] {
        guard let actionID else { return self.closeAll(reason: .dismiss) }
        guard let index = self.shown.firstIndex(where: { $0.message.actionID == actionID }) else { return [] }
        let action = self.shown.remove(at: index)
        return Self.closing(action, reason: .dismiss) + (self.shown.isEmpty ? [.windowDismissed] : [])
    }

    /// Closes everything (hard, with `message_close`) and holds back every later action until
    /// ``unsuppress()``; each held back one is tracked as `_message_suppressed`.
    package mutating func suppress() -> [Action] {
        self.isSuppressed = true
        return self.closeAll(reason: .hard)
    }

    package mutating func unsuppress() {
        self.isSuppressed = false
    }

    mutating func closeAll(reason: CloseReason) -> [Action] {
        guard !self.shown.isEmpty else { return [] }
        let closing = self.shown
        self.shown = []
        return closing.flatMap { Self.closing($0, reason: reason) } + [.windowDismissed]
    }

    static func closing(_ action: ShownAction, reason: CloseReason) -> [Action] {
        let ref = action.ref
        var actions: [Action] = [
            .willDisappear(ref, reason: reason), .close(actionID: ref.actionID, reason: reason), .didDisappear(ref, reason: reason),
        ]
        if reason == .dismiss || reason == .hard {
            actions.append(.track(KarteEvent(name: KarteEventName.messageClose, values: ["message": ref.messageValue])))
        }
        return actions
    }
}
