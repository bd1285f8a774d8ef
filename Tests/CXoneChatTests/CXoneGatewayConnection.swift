import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation

extension CXoneGateway {
    /// One client frame: `{"action", "eventId", "payload": {"brand", "channel", "customerIdentity" |
    /// "consumerIdentity", "eventType", "data", "visitor", "destination"}}`.
    struct Frame: CustomStringConvertible {
        let text: String
        let json: [String: Any]

        var action: String? { self.json["action"] as? String }
        var eventID: String { self.json["eventId"] as? String ?? "" }
        var payload: [String: Any] { self.json["payload"] as? [String: Any] ?? [:] }
        var eventType: String { self.payload["eventType"] as? String ?? "" }
        var data: [String: Any] { self.payload["data"] as? [String: Any] ?? [:] }
        /// The customer the frame speaks for (the key depends on the event type, as in the SDK).
        var customer: [String: Any] { (self.payload["customerIdentity"] ?? self.payload["consumerIdentity"]) as? [String: Any] ?? [:] }
        /// `data.thread.idOnExternalPlatform`, for the events about a thread.
        var threadID: String? { (self.data["thread"] as? [String: Any])?["idOnExternalPlatform"] as? String }

        var description: String { self.text }
    }

    /// The gateway's end of one of the channel's WebSockets.
    struct Connection {
        let gateway: CXoneGateway
        let peer: WebSocketPeer

        /// The socket URL's query: `brandId`, `channelId`, `visitorId`, `sdkPlatform`, `sdkVersion`.
        var query: [String: String] {
            guard let start = self.peer.request.url.firstIndex(of: "?") else { return [:] }
            var query: [String: String] = [:]
            for pair in self.peer.request.url[self.peer.request.url.index(after: start)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                query[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return query
        }

        /// The channel's next frame. Heartbeats (`{"action":"heartbeat"}`) are answered with `"pong"` and
        /// skipped.
        func nextFrame() async throws -> Frame {
            while true {
                let message = try await self.peer.nextMessage()
                guard case .text(let text) = message else {
                    if case .ping = message { continue }
                    throw Failure(description: "the channel sent no frame but \(message)")
                }
                let json = try CXoneGateway.object(Array(text.utf8))
                if json["action"] as? String == "heartbeat", json["payload"] == nil {
                    self.peer.send(text: #""pong""#)
                    continue
                }
                return Frame(text: text, json: json)
            }
        }

        /// The channel's next frame, which must be an `eventType` event.
        func expect(_ eventType: String) async throws -> Frame {
            let frame = try await self.nextFrame()
            guard frame.eventType == eventType else { throw Failure(description: "expected \(eventType), got \(frame)") }
            return frame
        }

        /// AuthorizeCustomer, answered with ConsumerAuthorized for the identity it carries (a channel
        /// without OAuth: no access token).
        @discardableResult
        func authorize() async throws -> Frame {
            let frame = try await self.expect("AuthorizeCustomer")
            self.postback(to: frame, "ConsumerAuthorized", ["consumerIdentity": frame.customer])
            return frame
        }

        /// RecoverThread, answered with ThreadRecovered (the thread and its messages) or, while there is no
        /// thread yet, the operation error RecoveringThreadFailed.
        @discardableResult
        func recover() async throws -> Frame {
            let frame = try await self.expect("RecoverThread")
            if self.gateway.threadID == nil {
                self.fail(frame, "RecoveringThreadFailed", "Recovering thread failed.")
            } else {
                self.postback(to: frame, "ThreadRecovered", self.gateway.recoveredJSON)
            }
            return frame
        }

        /// The agent writes: kept in the thread (started if needed) and pushed as MessageCreated.
        @discardableResult
        func agentSays(_ text: String) -> Message {
            let message = self.gateway.agentWrites(text)
            self.created(message)
            return message
        }

        /// The customer's SendMessage taken: kept, and confirmed with its MessageCreated (the echo carries
        /// the message's `idOnExternalPlatform`).
        func confirm(_ send: Frame) {
            let data = send.data
            let content = data["messageContent"] as? [String: Any]
            let message = Message(
                id: data["idOnExternalPlatform"] as? String ?? "",
                text: (content?["payload"] as? [String: Any])?["text"] as? String ?? "",
                fromAgent: false,
                createdAt: self.gateway.now,
                customer: send.customer.compactMapValues { $0 as? String }
            )
            self.created(self.gateway.keep(message, in: send.threadID))
        }

        /// MessageCreated for `message`, pushed.
        func created(_ message: Message) {
            let data: [String: Any] = [
                "brand": ["id": CXoneGateway.brandID], "channel": ["id": CXoneGateway.channelID], "case": self.gateway.contactJSON,
                "thread": self.gateway.threadJSON, "message": self.gateway.json(message),
            ]
            self.push("MessageCreated", object: "Message", data)
        }

        /// A pushed event: `{"eventId", "eventObject", "eventType", "createdAt", "data"}`.
        func push(_ eventType: String, object: String, _ data: [String: Any]) {
            self.send([
                "eventId": UUID().uuidString.lowercased(), "eventObject": object, "eventType": eventType,
                "createdAt": CXoneGateway.timestamp(self.gateway.now), "data": data,
            ])
        }

        /// A postback: `{"eventId": <the request's>, "postback": {"eventType", "data"}}`.
        func postback(to frame: Frame, _ eventType: String, _ data: [String: Any]) {
            self.send(["eventId": frame.eventID, "postback": ["eventType": eventType, "data": data] as [String: Any]])
        }

        /// An operation error: `{"eventId", "error": {"errorCode", "errorMessage", "transactionId": <the request's>}}`.
        func fail(_ frame: Frame, _ code: String, _ message: String) {
            self.send([
                "eventId": UUID().uuidString.lowercased(),
                "error": ["errorCode": code, "errorMessage": message, "transactionId": frame.eventID],
            ])
        }

        func send(_ object: [String: Any]) {
            self.peer.send(text: String(decoding: CXoneGateway.bytes(object), as: UTF8.self))
        }
    }
}
