import Foundation
import Synchronization

/// Chat API v1 over REST, as GMS's "Chat API Version 1" and its push page describe it:
/// `POST /genesys/1/service/request-chat` makes a service, `…/<id>/ixn/chat` starts the chat on it, and
/// `…/ixn/chat/{send,refresh,startTyping,stopTyping,disconnect}` act on it. Every request needs the
/// `gms_user` header; the chat's events go over CometD (`/_genesys`) to the clients carrying that header.
extension GMSChatServer {
    static let v1Prefix = "/genesys/1/service"

    /// A v1 error: GMS's `{"message","exception"}` body.
    static func v1Error(_ status: Int, _ message: String, exception: String) -> HTTPReply {
        GMSJSON.object(["message": .string(message), "exception": .string(exception)]).reply(status: status)
    }

    func v1Route(_ request: HTTPRouteRequest) -> HTTPReply {
        let segments = Array(request.segments.dropFirst(3))  // after genesys/1/service
        guard request.method == "POST" else {
            return Self.v1Error(405, "GMS Chat API v1 takes POST, not \(request.method) (\(request.path))", exception: "MethodNotAllowed")
        }
        guard let gmsUser = request.headers["gms_user"], !gmsUser.isEmpty else {
            return Self.v1Error(
                400,
                "\(request.path): the gms_user header is missing; GMS needs it on every v1 request and on the CometD requests of the same user",
                exception: "MissingHeader"
            )
        }
        var fields = request.query
        let contentType = request.headers["content-type"] ?? ""
        if contentType.isEmpty || contentType.contains("x-www-form-urlencoded") { fields.merge(request.formBody) { _, body in body } }
        let result: Result<(GMSJSON, [GMSEffect]), V1Failure> = self.state.withLock { state in
            switch (segments.count, segments.first ?? "") {
            case (1, "request-chat"):
                let id = "180-" + UUID().uuidString.lowercased()
                state.v1Services[id] = .some(nil)
                return .success((["_id": .string(id), "_chatIxnAPI-CREATE-URL": .string("\(Self.v1Prefix)/\(id)/ixn/chat")], []))
            case (3, let service) where segments[1] == "ixn" && segments[2] == "chat":
                return self.v1CreateChat(service: service, fields: fields, gmsUser: gmsUser, &state)
            case (4, let service) where segments[1] == "ixn" && segments[2] == "chat":
                return self.v1Operation(segments[3], service: service, fields: fields, &state)
            default:
                return .failure(V1Failure(status: 404, message: "no GMS v1 endpoint \(request.path)", exception: "NotFound"))
            }
        }
        switch result {
        case .success(let (body, effects)):
            self.perform(effects)
            return body.reply()
        case .failure(let failure): return Self.v1Error(failure.status, failure.message, exception: failure.exception)
        }
    }

    struct V1Failure: Error {
        var status: Int
        var message: String
        var exception: String
    }

    private func v1CreateChat(
        service: String,
        fields: [String: String],
        gmsUser: String,
        _ state: inout State
    ) -> Result<(GMSJSON, [GMSEffect]), V1Failure> {
        guard let existing = state.v1Services[service] else {
            return .failure(
                V1Failure(status: 404, message: "no GMS service \(service); POST \(Self.v1Prefix)/request-chat first", exception: "ServiceNotFound")
            )
        }
        if let chatID = existing { return .success((self.v1Reply(chatID, state: "CONNECTED", &state), [])) }
        let name = [fields["firstName"] ?? fields["FirstName"], fields["lastName"] ?? fields["LastName"]].compactMap { $0 }.joined(separator: " ")
        let nickname = fields["nickname"] ?? fields["userDisplayName"] ?? (name.isEmpty ? "Customer" : name)
        let chat = GMSChatRecord(
            id: GMSIdentifiers.chatID(),
            version: .v1,
            service: service,
            secureKey: GMSIdentifiers.secureKey(),
            userID: GMSIdentifiers.userID(),
            alias: "117",
            nickname: nickname,
            gmsUser: gmsUser,
            startedAt: self.nowMilliseconds
        )
        state.chats[chat.id] = chat
        state.chatOrder.append(chat.id)
        state.v1Services[service] = .some(chat.id)
        let effects = self.record([RowEntry(kind: .joined, party: .client)], chat: chat.id, except: nil, &state).1
        return .success((self.v1Reply(chat.id, state: "CONNECTED", &state), effects + [.greetLater(chat: chat.id)]))
    }

    private func v1Operation(
        _ operation: String,
        service: String,
        fields: [String: String],
        _ state: inout State
    ) -> Result<(GMSJSON, [GMSEffect]), V1Failure> {
        guard let chatID = state.v1Services[service] ?? nil, let chat = state.chats[chatID] else {
            return .failure(
                V1Failure(status: 404, message: "no chat on GMS service \(service); POST …/\(service)/ixn/chat first", exception: "ChatNotFound")
            )
        }
        if chat.isEnded && operation != "refresh" {
            return .failure(V1Failure(status: 400, message: "chat \(chat.id) has ended; request a new chat", exception: "ChatEnded"))
        }
        var entries: [RowEntry] = []
        var effects: [GMSEffect] = []
        let text = fields["message"] ?? ""
        switch operation {
        case "send":
            entries = [RowEntry(kind: .message, party: .client, text: text)]
        case "refresh":
            if !text.isEmpty && !chat.isEnded { entries = [RowEntry(kind: .message, party: .client, text: text)] }
            if let position = fields["transcriptPosition"].flatMap({ Int($0) }) { state.chats[chatID]?.restCursor = position }
        case "startTyping": entries = [RowEntry(kind: .typingStarted, party: .client)]
        case "stopTyping": entries = [RowEntry(kind: .typingStopped, party: .client)]
        case "disconnect":
            state.chats[chatID]?.isEnded = true
            entries = [RowEntry(kind: .left, party: .client)]
        default:
            return .failure(
                V1Failure(
                    status: 404,
                    message: "unknown v1 chat operation '\(operation)': use send, refresh, startTyping, stopTyping or disconnect",
                    exception: "NotFound"
                )
            )
        }
        if entries.contains(where: { $0.kind == .message }) && self.settings.autoReply { effects.append(.autoReplyLater(chat: chatID, text: text)) }
        effects = self.record(entries, chat: chatID, except: nil, &state).1 + effects
        return .success((self.v1Reply(chatID, state: nil, &state), effects))
    }

    /// The chat interaction a v1 call answers with: the rows after the REST cursor (a refresh's
    /// `transcriptPosition` moves it), then the cursor moves to the end.
    private func v1Reply(_ chatID: String, state ixnState: String?, _ state: inout State) -> GMSJSON {
        guard let chat = state.chats[chatID] else { return [:] }
        var body = Self.v1Message(chat, rows: chat.rows.filter { $0.index > chat.restCursor }, state: ixnState)
        state.chats[chatID]?.restCursor = chat.rows.count
        body["userId"] = .string(chat.userID)
        body["secureKey"] = .string(chat.secureKey)
        body["alias"] = .string(chat.alias)
        body["chatServerLoadBalancerAlias"] = .string(chat.alias)
        let base = "\(Self.v1Prefix)/\(chat.service)/ixn/chat"
        for (key, path) in [
            ("SEND", "send"), ("REFRESH", "refresh"), ("START_TYPING", "startTyping"), ("STOP_TYPING", "stopTyping"), ("DISCONNECT", "disconnect"),
        ] {
            body["_chatIxnAPI_\(key)_URL"] = .string("\(base)/\(path)")
        }
        return body
    }
}
