import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// A KARTE SDK as far as the track endpoint sees it: JSON bodies, plain or gzipped, over AsyncHTTPClient.
/// Its gzip is zlib driven here, not the simulator's wrapper, so the two check each other.
struct KarteTestClient {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var bytes: [UInt8]

        /// The body as JSON, gunzipped first when the answer says `Content-Encoding: gzip`.
        func json() throws -> [String: Any] {
            let plain = self.headers["content-encoding"].first == "gzip" ? try TestGzip.decompress(self.bytes) : self.bytes
            return try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
        }

        var response: [String: Any] { get throws { try #require(try self.json()["response"] as? [String: Any]) } }
        var messages: [[String: Any]] { get throws { try #require(try self.response["messages"] as? [[String: Any]]) } }
    }

    var base: String
    var appKey: String

    /// A client that leaves bodies as they come: `HTTPClient.shared` decompresses gzip itself (and asks
    /// for it), which would hide what the simulator sent.
    static let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(decompression: .disabled))

    static let keys = ["visitor_id": "vis-1", "pv_id": "pv-2", "original_pv_id": "opv-3"]
    static var appInfo: [String: Any] { ["version_name": "1.0", "karte_sdk_version": "2.33.0", "system_info": ["os": "Linux"]] }

    /// A track body with these events (`[name, values]`) and the fixed keys.
    static func body(_ events: [(String, [String: Any])], keys: [String: String] = Self.keys) throws -> [UInt8] {
        let object: [String: Any] = [
            "keys": keys, "app_info": Self.appInfo, "events": events.map { ["event_name": $0.0, "values": $0.1] },
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// Posts a JSON body, gzipped (with `Content-Encoding: gzip`) unless `gzip` is false.
    func track(
        _ body: [UInt8],
        gzip: Bool = true,
        acceptGzip: Bool = false,
        appKey: String? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        try await self.send(
            gzip ? TestGzip.compress(body) : body,
            contentEncoding: gzip ? "gzip" : nil,
            acceptGzip: acceptGzip,
            appKey: appKey,
            timeout: timeout
        )
    }

    /// Posts `bytes` as they are, with this `Content-Encoding` (even when they are not encoded so).
    func send(
        _ bytes: [UInt8],
        contentEncoding: String?,
        acceptGzip: Bool = false,
        appKey: String? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: self.base + "/v0/native/track")
        request.method = .POST
        request.headers.add(name: "X-KARTE-App-Key", value: appKey ?? self.appKey)
        request.headers.add(name: "Content-Type", value: "application/json")
        if let contentEncoding { request.headers.add(name: "Content-Encoding", value: contentEncoding) }
        if acceptGzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        request.body = .bytes(bytes)
        let response = try await Self.http.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, bytes: Array(bytes.readableBytesView))
    }

    func track(
        _ events: [(String, [String: Any])],
        gzip: Bool = true,
        acceptGzip: Bool = false,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        try await self.track(try Self.body(events), gzip: gzip, acceptGzip: acceptGzip, timeout: timeout)
    }

    /// A control request with a JSON body (or none): status and the answer's JSON.
    func control(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> (Int, Any) {
        var request = HTTPClientRequest(url: self.base + path)
        request.method = method
        if let json { request.body = .bytes(Array(json.utf8)) }
        let response = try await Self.http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView), options: .fragmentsAllowed))
    }
}
