public import AttendantPluginAPI
public import AttendantPluginKit

/// An event as the application tracks it: a name and its values, before it is stamped with the time and
/// the page it belongs to.
public struct KarteEvent: Sendable, Hashable {
    public var name: String
    public var values: [String: JSONValue]

    public init(name: String, values: [String: JSONValue] = [:]) {
        self.name = name
        self.values = values
    }
}

/// The event names the SDKs send (karte.md §1, "Event names"); any other name is a custom event.
public enum KarteEventName {
    public static let view = "view"
    public static let identify = "identify"
    public static let attribute = "attribute"
    public static let appInstall = "native_app_install"
    public static let appUpdate = "native_app_update"
    public static let appOpen = "native_app_open"
    public static let appForeground = "native_app_foreground"
    public static let appBackground = "native_app_background"
    /// `Variables.fetch()`: not retried, and a response to a request holding it clears the variables.
    public static let fetchVariables = "_fetch_variables"
    public static let messageReady = "_message_ready"
    public static let messageOpen = "message_open"
    public static let messageClose = "message_close"
    public static let messageClick = "message_click"
    public static let messageSuppressed = "_message_suppressed"
}

/// The ids that group events into requests. The SDKs record them when `track()` is called, not when the
/// request is sent, so an event keeps the page it was tracked on even if a `view` comes before the flush.
public struct KarteKeys: Sendable, Hashable {
    public var visitorID: String
    public var pvID: String
    public var originalPVID: String

    public init(visitorID: String, pvID: String, originalPVID: String) {
        self.visitorID = visitorID
        self.pvID = pvID
        self.originalPVID = originalPVID
    }

    /// `{"original_pv_id","pv_id","visitor_id"}`, the body's `keys`.
    public var json: JSONValue {
        .object([
            "visitor_id": .string(self.visitorID),
            "pv_id": .string(self.pvID),
            "original_pv_id": .string(self.originalPVID),
        ])
    }
}

/// An event stamped at `track()` time: its keys and its local date.
public struct KarteRecordedEvent: Sendable, Hashable {
    public var event: KarteEvent
    public var keys: KarteKeys
    /// Sent as `values._local_event_date`, in seconds (a fraction when there is one, as iOS does).
    public var date: UnixTime
    /// The machine's name for it while it is not yet answered (`<original_pv_id>-<n>`): the driver keeps
    /// the event in its store under this name until its request ends, so a crash loses nothing.
    public var localID: String = ""

    public init(event: KarteEvent, keys: KarteKeys, date: UnixTime) {
        self.event = event
        self.keys = keys
        self.date = date
    }

    /// The wire form: `{"event_name": …, "values": {…, "_local_event_date": …}}`, and `"_retry": true` in the
    /// values when the event goes out again after a failed request.
    public func json(retry: Bool) -> JSONValue {
        var values = self.event.values
        values["_local_event_date"] = .number(self.date.secondsSince1970)
        if retry { values["_retry"] = .bool(true) }
        return .object(["event_name": .string(self.event.name), "values": .object(values)])
    }
}

extension KarteRecordedEvent {
    /// The form kept in the store until the event's request ends.
    public var persisted: JSONValue {
        .object([
            "local_id": .string(self.localID), "event_name": .string(self.event.name), "values": .object(self.event.values),
            "keys": self.keys.json, "date": .number(self.date.secondsSince1970),
        ])
    }

    /// An event kept with ``persisted``; nil for anything else.
    public init?(persisted json: JSONValue) {
        guard let localID = json["local_id"]?.stringValue, let name = json["event_name"]?.stringValue,
            case .object(let values)? = json["values"], let date = json["date"]?.numberValue,
            let visitor = json["keys"]?["visitor_id"]?.stringValue, let pv = json["keys"]?["pv_id"]?.stringValue,
            let original = json["keys"]?["original_pv_id"]?.stringValue
        else { return nil }
        self.init(event: KarteEvent(name: name, values: values), keys: KarteKeys(visitorID: visitor, pvID: pv, originalPVID: original), date: UnixTime(secondsSince1970: date))
        self.localID = localID
    }
}
