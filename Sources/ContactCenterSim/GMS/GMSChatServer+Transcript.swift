import Synchronization

/// Transcript rows and the events that carry them: v2 events on `/service/chatV2/<service>` to the
/// chat's bound client, v1 events on `/_genesys` to the clients whose requests carry the chat's
/// `gms_user`; and the background protocol (away on `/meta/disconnect` + `ext.transcriptPosition`, back on
/// a new session).
extension GMSChatServer {
    static let v1Channel = "/_genesys"
    static let v2ChannelPrefix = "/service/chatV2/"

    var nowMilliseconds: Int { Int((self.now() * 1000).rounded()) }

    /// One row to append: what, by whom, and the nickname if not the party's usual one.
    struct RowEntry {
        var kind: GMSTranscriptRow.Kind
        var party: GMSParty
        var text: String = ""
        var nickname: String?
        var file: GMSChatFile?
    }

    /// Appends rows (each gets the next index) and pushes them live to the chat's customer, unless the
    /// customer is away (they stay in the transcript for the replay) or is `requester` (who gets them in
    /// the operation's answer instead).
    func record(_ entries: [RowEntry], chat id: String, except requester: String?, _ state: inout State) -> ([GMSTranscriptRow], [GMSEffect]) {
        guard var chat = state.chats[id] else { return ([], []) }
        var rows: [GMSTranscriptRow] = []
        for entry in entries {
            let nickname = entry.nickname ?? (entry.party == .client ? chat.nickname : self.settings.agentNickname)
            let row = GMSTranscriptRow(
                index: chat.nextPosition,
                kind: entry.kind,
                party: entry.party,
                nickname: nickname,
                text: entry.text,
                utcTime: self.nowMilliseconds,
                file: entry.file
            )
            chat.rows.append(row)
            rows.append(row)
        }
        state.chats[id] = chat
        return (rows, self.pushLive(rows, chat: chat, except: requester, &state))
    }

    func pushLive(_ rows: [GMSTranscriptRow], chat: GMSChatRecord, except requester: String?, _ state: inout State) -> [GMSEffect] {
        guard chat.isOnline else { return [] }
        switch chat.version {
        case .v2:
            guard let bound = chat.boundClient, bound != requester else { return [] }
            return self.deliver(Self.v2Event(chat, rows: rows), to: bound, &state)
        case .v1:
            guard let gmsUser = chat.gmsUser, let event = Self.v1Event(chat, rows: rows) else { return [] }
            var effects: [GMSEffect] = []
            for (id, client) in state.clients.sorted(by: { $0.key < $1.key })
            where client.gmsUser == gmsUser && client.isSubscribed(to: Self.v1Channel) {
                effects += self.deliver(event, to: id, &state)
            }
            return effects
        }
    }

    // MARK: v2 events

    /// A v2 event: `{"channel":"/service/chatV2/<service>","data":{chatId, statusCode 0, chatEnded, alias,
    /// userId, secureKey, nextPosition, messages}}`.
    static func v2Event(_ chat: GMSChatRecord, rows: [GMSTranscriptRow], channel: String? = nil) -> GMSJSON {
        let data: GMSJSON = [
            "chatId": .string(chat.id), "statusCode": 0, "chatEnded": .bool(chat.isEnded), "alias": .string(chat.alias),
            "userId": .string(chat.userID), "secureKey": .string(chat.secureKey), "nextPosition": .int(chat.nextPosition),
            "messages": .array(rows.map(\.v2JSON)), "userData": [:],
        ]
        return ["channel": .string(channel ?? v2ChannelPrefix + chat.service), "data": data]
    }

    /// A failed v2 operation: `statusCode` 2 and `errors:[{code, advice}]`.
    static func v2Error(channel: String, code: Int, advice: String, chat: GMSChatRecord? = nil) -> GMSJSON {
        var data: GMSJSON = [
            "statusCode": 2, "chatEnded": true, "messages": [], "errors": [["code": .int(code), "advice": .string(advice)]],
        ]
        if let chat {
            data["chatId"] = .string(chat.id)
            data["alias"] = .string(chat.alias)
            data["chatEnded"] = .bool(chat.isEnded)
        }
        return ["channel": .string(channel), "data": data]
    }

    // MARK: v1 events

    /// The v1 chat interaction (REST replies and `/_genesys` event messages alike): positions and row
    /// cells are strings; `transcriptPosition` is the position of the chat's last row.
    static func v1Message(_ chat: GMSChatRecord, rows: [GMSTranscriptRow], state ixnState: String? = nil) -> GMSJSON {
        [
            "chatSessionId": .string(chat.id), "transcriptPosition": .string(String(chat.rows.count)),
            "chatServiceMessage": "Chat service is available", "startedAt": .string(Self.iso8601(milliseconds: chat.startedAt)),
            "chatIxnState": .string(chat.isEnded ? "DISCONNECTED" : (ixnState ?? "TRANSCRIPT")),
            "transcriptToShow": .array(rows.compactMap { $0.v1JSON(startedAt: chat.startedAt) }),
        ]
    }

    /// `{"channel":"/_genesys","data":{"id","tag":"service.chat.refresh.<service id>","message":{…}}}`; nil
    /// when none of the rows has a v1 form and the chat goes on (nothing to tell).
    static func v1Event(_ chat: GMSChatRecord, rows: [GMSTranscriptRow], always: Bool = false) -> GMSJSON? {
        guard always || chat.isEnded || rows.contains(where: { $0.v1Type != nil }) else { return nil }
        return [
            "channel": .string(v1Channel),
            "data": [
                "id": .string(GMSIdentifiers.eventID()), "tag": .string("service.chat.refresh.\(chat.service)"),
                "message": v1Message(chat, rows: rows),
            ],
        ]
    }

    static func iso8601(milliseconds: Int) -> String {
        var seconds = milliseconds / 1000
        let second = seconds % 60
        let minute = (seconds / 60) % 60
        let hour = (seconds / 3600) % 24
        seconds /= 86400
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        let z = seconds + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
    }

    // MARK: Background

    /// The customer went to the background (`/meta/disconnect` with `ext.transcriptPosition`): its open
    /// chats (v2: bound to the client; v1: of its `gms_user`) are flagged not online, and the agent gets
    /// the "customer is not online" notice in the agent-side log. Agent events from now on are kept in
    /// the transcript, not pushed.
    func goAway(client: String?, gmsUser: String?, position: Int, _ state: inout State) -> [GMSEffect] {
        for id in state.chatOrder {
            guard var chat = state.chats[id], !chat.isEnded, chat.isOnline else { continue }
            let mine =
                switch chat.version {
                case .v2: client != nil && chat.boundClient == client
                case .v1: gmsUser != nil && chat.gmsUser == gmsUser
                }
            guard mine else { continue }
            chat.isOnline = false
            chat.awayPosition = position
            chat.agentNotices.append(self.settings.notOnlineNotice)
            state.chats[id] = chat
        }
        return []
    }

    /// A v1 customer is back (a client with the chat's `gms_user` subscribed to `/_genesys`): one
    /// catch-up event with every row after the position it went away at, queued so that it goes out
    /// with (in the same array as) the next connect reply.
    func comeBackV1(client id: String, _ state: inout State) -> [GMSEffect] {
        guard let gmsUser = state.clients[id]?.gmsUser else { return [] }
        var effects: [GMSEffect] = []
        for chatID in state.chatOrder {
            guard var chat = state.chats[chatID], chat.version == .v1, chat.gmsUser == gmsUser, !chat.isOnline else { continue }
            let rows = chat.rows.filter { $0.index > (chat.awayPosition ?? 0) }
            chat.isOnline = true
            chat.awayPosition = nil
            state.chats[chatID] = chat
            if let event = Self.v1Event(chat, rows: rows, always: true) { effects += self.deliver(event, to: id, &state) }
        }
        return effects
    }
}
