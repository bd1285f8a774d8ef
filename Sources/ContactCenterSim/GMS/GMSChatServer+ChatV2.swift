import Foundation
import Synchronization

/// Chat API v2 over CometD: a publish on `/service/chatV2/<service>` is an operation; its answer is an
/// event on the same channel, to the requesting client only (its Bayeux ack is separate).
extension GMSChatServer {
    func v2Operation(_ message: GMSJSON, client: String, _ state: inout State) -> [GMSEffect] {
        let channel = message["channel"]?.string ?? Self.v2ChannelPrefix
        let service = String(channel.dropFirst(Self.v2ChannelPrefix.count))
        let data = message["data"] ?? [:]
        let operation = data["operation"]?.string ?? ""
        let answer = { (event: GMSJSON, state: inout State) in self.deliver(event, to: client, &state) }
        if operation == "requestChat" { return self.requestChat(data, service: service, channel: channel, client: client, &state) }
        guard let secureKey = data["secureKey"]?.string,
            let chatID = state.chats.first(where: { $0.value.secureKey == secureKey && $0.value.version == .v2 })?.key,
            let chat = state.chats[chatID]
        else {
            let given = data["secureKey"]?.text.map { "'\($0)'" } ?? "none"
            let advice =
                "\(operation.isEmpty ? "the operation" : operation): no chat has the secureKey \(given); start a chat with requestChat and use the secureKey of its answer"
            return answer(Self.v2Error(channel: channel, code: 102, advice: advice), &state)
        }
        if operation == "requestNotifications" {
            // Binds the chat to this client and replays from the position (0 or none: everything).
            state.chats[chatID]?.boundClient = client
            state.chats[chatID]?.isOnline = true
            state.chats[chatID]?.awayPosition = nil
            let from = data["transcriptPosition"]?.intOrNumericString ?? 0
            return answer(Self.v2Event(chat, rows: chat.rows.filter { $0.index >= from }, channel: channel), &state)
        }
        guard !chat.isEnded else {
            return answer(
                Self.v2Error(
                    channel: channel,
                    code: 103,
                    advice: "\(operation): chat \(chat.id) has ended; start a new one with requestChat",
                    chat: chat
                ),
                &state
            )
        }
        var entries: [RowEntry] = []
        var effects: [GMSEffect] = []
        let text = data["message"]?.text ?? ""
        switch operation {
        case "sendMessage":
            entries = [RowEntry(kind: .message, party: .client, text: text)]
            if self.settings.autoReply { effects.append(.autoReplyLater(chat: chatID, text: text)) }
        case "startTyping": entries = [RowEntry(kind: .typingStarted, party: .client, text: text)]
        case "stopTyping": entries = [RowEntry(kind: .typingStopped, party: .client, text: text)]
        case "pushUrl": entries = [RowEntry(kind: .pushURL, party: .client, text: data["pushUrl"]?.text ?? "")]
        case "customNotice": entries = [RowEntry(kind: .customNotice, party: .client, text: text)]
        case "updateNickname":
            guard let nickname = data["nickname"]?.string, !nickname.isEmpty else {
                return answer(Self.v2Error(channel: channel, code: 101, advice: "updateNickname needs a nickname", chat: chat), &state)
            }
            state.chats[chatID]?.nickname = nickname
            entries = [RowEntry(kind: .nicknameUpdated, party: .client, text: nickname, nickname: nickname)]
        case "updateData":
            break
        case "disconnect":
            state.chats[chatID]?.isEnded = true
            entries = [RowEntry(kind: .left, party: .client)]
        default:
            let advice =
                "unknown operation '\(operation)': use requestChat, sendMessage, startTyping, stopTyping, requestNotifications, pushUrl, customNotice, updateNickname, updateData or disconnect"
            return answer(Self.v2Error(channel: channel, code: 104, advice: advice, chat: chat), &state)
        }
        let (rows, pushed) = self.record(entries, chat: chatID, except: client, &state)
        guard let updated = state.chats[chatID] else { return effects }
        return pushed + answer(Self.v2Event(updated, rows: rows, channel: channel), &state) + effects
    }

    /// `requestChat`: a new chat bound to the client, its first row the customer joining; the agent joins
    /// after the greeting delay.
    private func requestChat(_ data: GMSJSON, service: String, channel: String, client: String, _ state: inout State) -> [GMSEffect] {
        let nickname =
            data["nickname"]?.string
            ?? [data["firstName"]?.string, data["lastName"]?.string].compactMap { $0 }.joined(separator: " ")
        guard !nickname.trimmingCharacters(in: .whitespaces).isEmpty else {
            let error = Self.v2Error(channel: channel, code: 101, advice: "requestChat needs a nickname, or a firstName and a lastName")
            return self.deliver(error, to: client, &state)
        }
        var chat = GMSChatRecord(
            id: GMSIdentifiers.chatID(),
            version: .v2,
            service: service.isEmpty ? self.settings.serviceName : service,
            secureKey: GMSIdentifiers.secureKey(),
            userID: GMSIdentifiers.userID(),
            alias: "117",
            nickname: nickname,
            boundClient: client,
            startedAt: self.nowMilliseconds
        )
        chat.userData = data["userData"]?.object?.compactMapValues(\.string) ?? [:]
        state.chats[chat.id] = chat
        state.chatOrder.append(chat.id)
        let (rows, _) = self.record([RowEntry(kind: .joined, party: .client)], chat: chat.id, except: client, &state)
        guard let created = state.chats[chat.id] else { return [] }
        return self.deliver(Self.v2Event(created, rows: rows, channel: channel), to: client, &state) + [.greetLater(chat: chat.id)]
    }
}
