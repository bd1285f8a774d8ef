package import AttendantPluginKit

/// The JSON body of `POST {base}/v0/native/track`: one (visitor, pv_id, original_pv_id) group and its
/// events. The driver gzips the encoded bytes and sends `Content-Encoding: gzip`.
package struct KarteTrackBody: Sendable, Hashable {
    package var keys: KarteKeys
    package var appInfo: KarteAppInfo
    package var events: [KarteRecordedEvent]
    /// Whether the request is a retry: every event then carries `_retry: true`.
    package var retry: Bool

    package init(keys: KarteKeys, appInfo: KarteAppInfo, events: [KarteRecordedEvent], retry: Bool = false) {
        self.keys = keys
        self.appInfo = appInfo
        self.events = events
        self.retry = retry
    }

    package var json: JSONValue {
        .object([
            "keys": self.keys.json,
            "app_info": self.appInfo.json,
            "events": .array(self.events.map { $0.json(retry: self.retry) }),
        ])
    }

    /// Compact UTF-8 JSON with members in key order, so the same body always gives the same bytes.
    package func encoded() -> [UInt8] { self.json.encoded() }
}
