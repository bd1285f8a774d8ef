import Foundation
import Synchronization

/// The scripted agent: messages, quick replies, cards, typing, presence and ConversationDisconnect, pushed
/// as `{"type": "message", "class": "StructuredMessage"}` frames (`transport/util/Response.kt`), and the
/// session's expiry.
extension GenesysMessagingServer {
    /// The agent writes `text` in a session (nil: the newest); `originatingEntity` is `Human` or `Bot`.
    @discardableResult
    package func agentSays(session: String? = nil, text: String, originatingEntity: String = "Human") throws(SimulatorError) -> String {
        try self.agentSays(token: try self.sessionToken(session), text: text, originatingEntity: originatingEntity).id
    }

    @discardableResult
    func agentSays(token: String, text: String, originatingEntity: String = "Human") throws(SimulatorError) -> SimGenesysMessage {
        try self.deliver(self.outbound(type: "Text", text: text, originatingEntity: originatingEntity), to: token)
    }

    /// Quick replies (`Response.onMessageWithQuickReplies`): a Structured message whose content is
    /// `{"contentType": "QuickReply", "quickReply": {"text", "payload", "action": "Message"}}` per option.
    @discardableResult
    package func agentOffersQuickReplies(
        session: String? = nil,
        text: String,
        options: [(text: String, payload: String)]
    ) throws(SimulatorError)
        -> String
    {
        var message = self.outbound(type: "Structured", text: text, originatingEntity: "Bot")
        message.content = options.map {
            ["contentType": "QuickReply", "quickReply": ["text": .string($0.text), "payload": .string($0.payload), "action": "Message"]]
        }
        return try self.deliver(message, to: try self.sessionToken(session)).id
    }

    /// A card (`Response.onMessageWithPostbackCardReply`): `{"contentType": "Card", "card": {"title",
    /// "description", "image"?, "actions": [{"type": "Postback", "text", "payload"} or {"type": "Link",
    /// "text", "url"}]}}`.
    @discardableResult
    package func agentSendsCard(
        session: String? = nil,
        text: String,
        title: String,
        description: String,
        image: String? = nil,
        postbacks: [(text: String, payload: String)],
        links: [(text: String, url: String)] = []
    ) throws(SimulatorError) -> String {
        var card: GMSJSON = [
            "title": .string(title),
            "description": .string(description),
            "actions": .array(
                postbacks.map { ["type": "Postback", "text": .string($0.text), "payload": .string($0.payload)] }
                    + links.map { ["type": "Link", "text": .string($0.text), "url": .string($0.url)] }
            ),
        ]
        if let image { card["image"] = .string(image) }
        var message = self.outbound(type: "Structured", text: text, originatingEntity: "Bot")
        message.content = [["contentType": "Card", "card": card]]
        return try self.deliver(message, to: try self.sessionToken(session)).id
    }

    /// The agent is typing: an Outbound Typing event, not kept in the history.
    package func agentTyping(session: String? = nil, durationMilliseconds: Int = 5000) throws(SimulatorError) {
        var event = self.outbound(type: "Event", text: nil, originatingEntity: "Human")
        event.events = [SimGenesysMessage.typing(durationMilliseconds: durationMilliseconds)]
        try self.deliver(event, to: try self.sessionToken(session), store: false)
    }

    /// The agent joins the conversation: an Outbound Presence Join event.
    @discardableResult
    package func agentJoins(session: String? = nil) throws(SimulatorError) -> String {
        var event = self.outbound(type: "Event", text: nil, originatingEntity: "Human")
        event.events = [SimGenesysMessage.presence("Join")]
        return try self.deliver(event, to: try self.sessionToken(session)).id
    }

    /// The agent ends the conversation (ConversationDisconnect): an Outbound Presence Disconnect event with
    /// metadata `readOnly` "true" when the deployment's disconnect type is ReadOnly
    /// (MessagingClientConversationDisconnectTest: the SDK goes read-only on that metadata). The session
    /// then refuses messages until the client configures with `startNew`.
    @discardableResult
    package func agentDisconnects(session: String? = nil) throws(SimulatorError) -> String {
        let token = try self.sessionToken(session)
        var event = self.outbound(type: "Event", text: nil, originatingEntity: "Human")
        event.events = [SimGenesysMessage.presence("Disconnect")]
        event.metadata = ["readOnly": self.settings.disconnectReadOnly ? "true" : "false"]
        if self.settings.disconnectReadOnly { self.state.withLock { $0.sessions[token]?.readOnly = true } }
        return try self.deliver(event, to: token).id
    }

    /// Moves a session's expiration to `seconds` from now (the configuration's clock): SessionResponse and
    /// echo answers carry it, from which the SDK raises SessionExpirationNotice (SessionDurationHandler).
    package func setExpiration(session: String? = nil, inSeconds seconds: Int) throws(SimulatorError) {
        let token = try self.sessionToken(session)
        let date = self.nowSeconds + seconds
        self.state.withLock { $0.sessions[token]?.expirationDate = date }
    }

    /// The session expires now: SessionExpiredEvent to its sockets (`Response.sessionExpiredEvent`:
    /// `{"type": "response", "class": "SessionExpiredEvent", "code": 200, "body": {}}`); its requests are
    /// then 4006, and configuring its token again starts a new session.
    package func expireSession(session: String? = nil) throws(SimulatorError) {
        let token = try self.sessionToken(session)
        self.state.withLock { $0.sessions[token]?.expired = true }
        for socket in self.connections(of: token) { socket.send(.response("SessionExpiredEvent", [:], tracingId: nil)) }
    }

    // MARK: Delivery

    /// An agent's message: Outbound, `channel.from` the agent.
    func outbound(type: String, text: String?, originatingEntity: String) -> SimGenesysMessage {
        SimGenesysMessage(
            id: SimGenesysTime.id(),
            type: type,
            text: text,
            direction: "Outbound",
            time: Date(timeIntervalSince1970: self.now()),
            originatingEntity: originatingEntity,
            from: ["nickname": .string(self.settings.agentName), "firstName": .string(self.settings.agentName)]
        )
    }

    /// Keeps `message` in the session's conversation (unless `store` is false) and pushes it to the
    /// session's sockets.
    @discardableResult
    func deliver(_ message: SimGenesysMessage, to token: String, store: Bool = true) throws(SimulatorError) -> SimGenesysMessage {
        let known = self.state.withLock { state in
            guard state.sessions[token] != nil else { return false }
            if store { state.sessions[token]?.messages.append(message) }
            return true
        }
        guard known else { throw SimulatorError(.callState, "the web messaging service has no such session") }
        for socket in self.connections(of: token) { socket.send(.message("StructuredMessage", message.json)) }
        return message
    }

    /// The greeting of a new session: the agent joins, then says it.
    func agentJoinsAndGreets(token: String, greeting: String) {
        var join = self.outbound(type: "Event", text: nil, originatingEntity: "Human")
        join.events = [SimGenesysMessage.presence("Join")]
        _ = try? self.deliver(join, to: token)
        _ = try? self.agentSays(token: token, text: greeting)
    }
}
