package import AttendantPluginAPI
package import AttendantPluginKit

/// The events the SDKs track themselves or through a helper (karte.md §1, "Event names").
extension KarteTrackingMachine {
    /// At start: `native_app_install` when no version was stored, `native_app_update` (with
    /// `prev_version_name`) when the stored one differs, then `native_app_open`. The driver stores
    /// `version` afterwards.
    package mutating func launch(version: String, previousVersion: String?, now: UnixTime) -> [Action] {
        var actions: [Action] = []
        switch previousVersion {
        case nil:
            actions += self.record(KarteEvent(name: KarteEventName.appInstall), now: now)
        case let previous? where previous != version:
            actions += self.record(KarteEvent(name: KarteEventName.appUpdate, values: ["prev_version_name": .string(previous)]), now: now)
        default:
            break
        }
        actions += self.record(KarteEvent(name: KarteEventName.appOpen), now: now)
        return actions
    }

    /// The session became active (logind: unlocked, or the seat came back).
    package mutating func foreground(now: UnixTime) -> [Action] {
        self.record(KarteEvent(name: KarteEventName.appForeground), now: now)
    }

    /// The session went inactive (locked, or switched away).
    package mutating func background(now: UnixTime) -> [Action] {
        self.record(KarteEvent(name: KarteEventName.appBackground), now: now)
    }

    /// A screen view: the pv_id is renewed first (a soft reset unless the old pv was the original, as
    /// iOS does), then `view` is recorded with `view_name` and `title` (defaulting to the view name).
    /// Nothing changes when the values are refused.
    package mutating func view(
        name: String,
        title: String? = nil,
        values: [String: JSONValue] = [:],
        now: UnixTime
    ) throws(KarteFieldError) -> [Action] {
        var all = values
        all["view_name"] = .string(name)
        all["title"] = .string(title ?? name)
        let event = KarteEvent(name: KarteEventName.view, values: all)
        try event.validate()
        let change = self.renewPV(reset: self.pvID != self.originalPVID)
        return [.pageChanged(change)] + self.record(event, now: now)
    }

    /// `identify` with `user_id` and the user's other fields.
    package mutating func identify(userID: String, values: [String: JSONValue] = [:], now: UnixTime) throws(KarteFieldError) -> [Action] {
        var all = values
        all["user_id"] = .string(userID)
        return try self.track(KarteEvent(name: KarteEventName.identify, values: all), now: now)
    }

    /// `attribute`: the user's fields without an id.
    package mutating func attribute(_ values: [String: JSONValue], now: UnixTime) throws(KarteFieldError) -> [Action] {
        try self.track(KarteEvent(name: KarteEventName.attribute, values: values), now: now)
    }
}
