import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A tiny Bayeux long-polling client for the GMS server tests: raw JSON through `JSONSerialization`, so
/// it shares no code with the server's codec (nor with the plugin's).
struct GMSTestClient: Sendable {
    /// A parsed message, `JSONSerialization`'s dictionary.
    typealias Message = [String: Any]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `http://127.0.0.1:PORT/genesys/cometd`.
    let url: String
    /// Sent as the `gms_user` header on every request (v1 clients).
    var gmsUser: String?

    /// One POST of `body` (JSON text); the status, body and headers.
    func post(
        _ body: String,
        to path: String = "",
        contentType: String = "application/json"
    ) async throws -> (status: Int, body: [UInt8], headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: self.url + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        if let gmsUser { request.headers.add(name: "gms_user", value: gmsUser) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), Array(collected.readableBytesView), response.headers)
    }

    /// Posts messages (JSON objects as text) as one array; the answer's messages.
    func send(_ messages: String...) async throws -> [Message] {
        try Self.parse(try await self.post("[" + messages.joined(separator: ",") + "]").body)
    }

    static func parse(_ body: [UInt8]) throws -> [Message] {
        guard let array = try JSONSerialization.jsonObject(with: Data(body)) as? [Message] else {
            throw Failure(description: "not a JSON array of objects: \(String(decoding: body, as: UTF8.self))")
        }
        return array
    }

    /// Handshakes; the new clientId.
    func handshake() async throws -> String {
        let replies = try await self.send(#"{"channel":"/meta/handshake","version":"1.0","supportedConnectionTypes":["long-polling"],"id":"1"}"#)
        guard let clientID = replies.first?["clientId"] as? String, replies.first?["successful"] as? Bool == true else {
            throw Failure(description: "handshake failed: \(replies)")
        }
        return clientID
    }

    /// The raw connect request body for `clientID`.
    static func connectBody(_ clientID: String, id: String = "c", timeout: Int? = nil) -> String {
        let advice = timeout.map { #","advice":{"timeout":\#($0)}"# } ?? ""
        return #"[{"channel":"/meta/connect","clientId":"\#(clientID)","connectionType":"long-polling","id":"\#(id)"\#(advice)}]"#
    }

    /// One `/meta/connect` (held by the server until events or its hold ends).
    func connect(_ clientID: String, timeout: Int? = nil) async throws -> [Message] {
        try Self.parse(try await self.post(Self.connectBody(clientID, timeout: timeout)).body)
    }

    func subscribe(_ clientID: String, _ channel: String) async throws -> [Message] {
        try await self.send(#"{"channel":"/meta/subscribe","clientId":"\#(clientID)","subscription":"\#(channel)","id":"s"}"#)
    }

    /// Publishes `data` (a JSON object as text); the answer (the ack).
    func publish(_ clientID: String, _ channel: String, _ data: String, id: String = "p") async throws -> [Message] {
        try await self.send(#"{"channel":"\#(channel)","clientId":"\#(clientID)","data":\#(data),"id":"\#(id)"}"#)
    }

    /// Connects again and again, collecting the events on `channel` (messages with `data`), until `done`
    /// holds for what was collected; every connect is asked to wait at most 2 s, so the loop checks often.
    func events(_ clientID: String, on channel: String, within seconds: Double = 60, until done: ([Message]) -> Bool) async throws -> [Message] {
        var events: [Message] = []
        let deadline = Date().addingTimeInterval(seconds)
        while !done(events) {
            guard Date() < deadline else { throw Failure(description: "events on \(channel) within \(seconds) s: only \(events)") }
            let replies = try await self.connect(clientID, timeout: 2000)
            if let failed = replies.first(where: { $0["channel"] as? String == "/meta/connect" && $0["successful"] as? Bool == false }) {
                throw Failure(description: "connect failed: \(failed)")
            }
            events += replies.filter { $0["channel"] as? String == channel && $0["data"] != nil }
        }
        return events
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `data.messages` of a v2 event.
    var v2Messages: [[String: Any]] { ((self["data"] as? [String: Any])?["messages"] as? [[String: Any]]) ?? [] }

    /// `data` of an event.
    var data: [String: Any] { (self["data"] as? [String: Any]) ?? [:] }
}
