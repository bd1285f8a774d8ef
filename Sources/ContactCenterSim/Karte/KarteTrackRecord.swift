/// The ids every track request carries (karte.md §3): the server never echoes pv ids, so the records keep
/// them for tests that check which screen an event was sent from.
package struct KarteKeys: Sendable, Hashable {
    package var visitorID: String
    package var pvID: String
    package var originalPvID: String

    init(_ keys: GMSJSON?) {
        self.visitorID = keys?["visitor_id"]?.string ?? ""
        self.pvID = keys?["pv_id"]?.string ?? ""
        self.originalPvID = keys?["original_pv_id"]?.string ?? ""
    }

    var json: GMSJSON { ["visitor_id": .string(self.visitorID), "pv_id": .string(self.pvID), "original_pv_id": .string(self.originalPvID)] }
}

/// One event as the track endpoint received it.
package struct KarteRecordedEvent: Sendable, Hashable {
    /// The sequence number of the request that carried it (1 for the first track request).
    package var request: Int
    package var eventName: String
    package var keys: KarteKeys
    /// `values._retry == true`: the SDK sent it again after a failed request.
    package var retry: Bool
    /// Whether the request body was gzipped.
    package var gzip: Bool
    let values: GMSJSON

    /// The event's values as JSON text, keys sorted.
    package var valuesJSON: String { String(decoding: self.values.encoded, as: UTF8.self) }

    /// A scalar value as text (`"home"`, `"true"`, `"1700000000"`); nil when absent or not a scalar.
    package func value(_ key: String) -> String? { self.values[key]?.text }

    var json: GMSJSON {
        [
            "request": .int(self.request), "event_name": .string(self.eventName), "values": self.values, "keys": self.keys.json,
            "retry": .bool(self.retry), "gzip": .bool(self.gzip),
        ]
    }
}

/// One track request and how it was answered.
package struct KarteRecordedRequest: Sendable, Hashable {
    package var request: Int
    /// The HTTP status answered; 0 when the request was never answered (the `hang` fault).
    package var status: Int
    package var gzip: Bool
    package var eventCount: Int
    package var appKeyOK: Bool
    /// Empty ids when the request was refused before its body was read.
    package var keys: KarteKeys

    var json: GMSJSON {
        [
            "request": .int(self.request), "status": .int(self.status), "gzip": .bool(self.gzip), "events": .int(self.eventCount),
            "app_key_ok": .bool(self.appKeyOK), "keys": self.keys.json,
        ]
    }
}
