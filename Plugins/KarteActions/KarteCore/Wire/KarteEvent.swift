package import AttendantPluginAPI
package import AttendantPluginKit

/// An event as the application tracks it: a name and its values, before it is stamped with the time and
/// the page it belongs to.
package struct KarteEvent: Sendable, Hashable {
    package var name: String
    package var values: [String: JSONValue]

    package init(name: String, values: [String: JSONValue] = [:]) {
        self.name = name
        self.values = values
    }
}

/// The event names the SDKs send (karte.md §1, "Event names"); any other name is a custom event.
package enum KarteEventName {
    package static let view = "view"
    package static let identify = "identify"
    package static let attribute = "attribute"
    package static let appInstall = "native_app_install"
    package static let appUpdate = "native_app_update"
    package static let appOpen = "native_app_open"
    package static let appForeground = "native_app_foreground"
    package static let appBackground = "native_app_background"
    /// `Variables.fetch()`: not retried, and a response to a request holding it clears the variables.
    package static let fetchVariables = "_fetch_variables"
    package static let messageReady = "_message_ready"
    package static let messageOpen = "message_open"
    package static let messageClose = "message_close"
    package static let messageClick = "message_click"
    package static let messageSuppressed = "_message_suppressed"
}

/// The ids that group events into requests. The SDKs record them when `track()` is called, not when the
/// request is sent, so an event keeps the page it was tracked on even if a `view` comes before the flush.
package struct KarteKeys: Sendable, Hashable {
    package var visitorID: String
    package var pvID: String
    package var originalPVID: String

    package init(visitorID: String, pvID: String, originalPVID: String) {
        self.visitorID = visitorID
        self.pvID = pvID
        self.originalPVID = originalPVID
    }

    /// `{"original_pv_id","pv_id","visitor_id"}`, the body's `keys`.
    package var json: JSONValue {
        .object([
            "visitor_id": .string(self.visitorID),
            "pv_id": .string(self.pvID),
            "original_pv_id": .string(self.originalPVID),
        ])
    }
}

/// An event stamped at `track()` time: its keys and its local date.
package struct KarteRecordedEvent: Sendable, Hashable {
    package var event: KarteEvent
    package var keys: KarteKeys
    /// Sent as `values._local_event_date`, in seconds (a fraction when there is one, as iOS does).
    package var date: UnixTime
    /// The machine's name for it while it is not yet answered (`<original_pv_id>-<n>`): the driver keeps
    /// the event in its store under this name until its request ends, so a crash loses nothing.
    package var localID: String = ""

    package init(event: KarteEvent, keys: KarteKeys, date: UnixTime) {
        self.event = event
        self.keys = keys
        self.date = date
    }

    /// The wire form: `{"event_name": …, "values": {…, "_local_event_date": …}}`, and `"_retry": true` in the
    /// values when the event goes out again after a failed request.
    package func json(retry: Bool) -> JSONValue {
        var values = self.event.values
        values["_local_event_date"] = .number(self.date.secondsSince1970)
        if retry { values["_retry"] = .bool(true) }
        return .object(["event_name": .string(self.event.name), "values": .object(values)])
    }
}

extension KarteRecordedEvent {
    /// The form kept in the store until the event's request ends.
    package var persisted: JSONValue {
        .object([
            "local_id": .string(self.localID), "event_name": .string(self.event.name), "values": .object(self.event.values),
            "keys": self.keys.json, "date": .number(self.date.secondsSince1970),
        ])
    }

    /// An event kept with ``persisted``; nil for anything else.
    package init?(persisted json: JSONValue) {
        guard let localID = json["local_id"]?.stringValue, let name = json["event_name"]?.stringValue,
            case .object(let values)? = json["values"], let date = json["date"]?.numberValue,
            let visitor = json["keys"]?["visitor_id"]?.stringValue, let pv = json["keys"]?["pv_id"]?.stringValue,
            let original = json["keys"]?["original_pv_id"]?.stringValue
        else { return nil }
        self.init(
            event: KarteEvent(name: name, values: values),
            keys: KarteKeys(visitorID: visitor, pvID: pv, originalPVID: original),
            date: UnixTime(secondsSince1970: date)
        )
        self.localID = localID
    }
}
