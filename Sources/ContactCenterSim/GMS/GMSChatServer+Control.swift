import Synchronization

/// `/control/gms/…`: the scripted agent, faults and inspection for tests and the demo in another process.
extension GMSChatServer {
    /// The answer to `/control/gms/<action>`; nil for any other path.
    func controlRoute(_ request: HTTPRouteRequest) -> HTTPReply? {
        let segments = request.segments
        guard segments.count == 3, segments[0] == "control", segments[1] == "gms" else { return nil }
        let chat = request.query["chat"]
        do throws(SimulatorError) {
            switch (request.method, segments[2]) {
            case ("POST", "agent"):
                guard let text = request.query["text"], !text.isEmpty else {
                    return .error(400, "missing text parameter: /control/gms/agent?text=TEXT[&chat=ID]")
                }
                try self.agentSays(text, chatID: chat)
            case ("POST", "typing"):
                guard let state = request.query["state"], state == "started" || state == "stopped" else {
                    return .error(400, "state must be started or stopped: /control/gms/typing?state=started|stopped[&chat=ID]")
                }
                try self.agentTyping(started: state == "started", chatID: chat)
            case ("POST", "push-url"):
                guard let url = request.query["url"], !url.isEmpty else {
                    return .error(400, "missing url parameter: /control/gms/push-url?url=URL[&chat=ID]")
                }
                try self.agentPushesURL(url, chatID: chat)
            case ("POST", "notice"):
                guard let text = request.query["text"], !text.isEmpty else {
                    return .error(400, "missing text parameter: /control/gms/notice?text=TEXT[&chat=ID]")
                }
                try self.agentCustomNotice(text, chatID: chat)
            case ("POST", "file"):
                guard let name = request.query["name"], !name.isEmpty else {
                    return .error(
                        400,
                        "missing name parameter: /control/gms/file?name=NAME[&type=MIME][&size=BYTES][&chat=ID] with the file as the body"
                    )
                }
                // size=N: a file of N bytes, for one larger than a test wants to post.
                let bytes = request.query["size"].flatMap(Int.init).map { [UInt8](repeating: 0x61, count: $0) } ?? request.body
                let id = try self.agentSendsFile(
                    name: name,
                    mimeType: request.query["type"] ?? "application/octet-stream",
                    bytes: bytes,
                    chatID: chat
                )
                return .json(["ok": true, "file_id": id])
            case ("POST", "leave"):
                try self.agentLeaves(chatID: chat)
            case ("POST", "end"):
                try self.endChat(chatID: chat)
            case ("POST", "push"):
                return .json(["clients": self.pushRaw(request.body)])
            case ("POST", "fault"):
                switch request.query["kind"] ?? "" {
                case "restart": self.restart()
                case "drop": self.dropConnections()
                case "down": self.setDown(true)
                case "up":
                    self.setDown(false)
                    self.stallsDownloads = false
                case "stall-downloads": self.stallsDownloads = true
                case let other: return .error(400, "unknown GMS fault kind '\(other)': use restart, drop, down, stall-downloads or up")
                }
            case ("GET", "chats"):
                return GMSJSON.object(["chats": .array(self.chats.map(Self.json))]).reply()
            case ("GET", "status"):
                return self.statusJSON.reply()
            default:
                return .error(404, "no endpoint \(request.method) \(request.path); see attendant-sim --help")
            }
        } catch {
            return .error(409, error.message)
        }
        return .json(["ok": true])
    }

    var statusJSON: GMSJSON {
        let counters = self.counters
        return [
            "handshakes": .int(counters.handshakes), "connects": .int(counters.connects), "clients_alive": .int(counters.clientsAlive),
            "clients_expired": .int(counters.clientsExpired), "unknown_client_replies": .int(counters.unknownClientReplies),
            "restarts": .int(counters.restarts), "down": .bool(self.isDown),
            "disconnects": .array(
                counters.disconnects.map { disconnect in
                    var object: GMSJSON = ["client": .string(disconnect.clientID)]
                    object["transcript_position"] = disconnect.transcriptPosition.map { .string($0) }
                    return object
                }
            ),
        ]
    }

    static func json(_ chat: GMSChatSnapshot) -> GMSJSON {
        var object: GMSJSON = [
            "id": .string(chat.id), "version": .string(chat.version.rawValue), "service": .string(chat.service),
            "nickname": .string(chat.nickname), "online": .bool(chat.isOnline), "ended": .bool(chat.isEnded),
            "secure_key": .string(chat.secureKey),
            "customer_messages": .array(chat.customerMessages.map { .string($0) }),
            "agent_notices": .array(chat.agentNotices.map { .string($0) }),
            "user_data": .object(chat.userData.mapValues { .string($0) }),
            "transcript": .array(
                chat.rows.map { row in
                    [
                        "index": .int(row.index), "type": .string(row.v2Type), "party": .string(row.party.rawValue),
                        "nickname": .string(row.nickname), "text": .string(row.text), "utc_time": .int(row.utcTime),
                        "file": row.file.map { file in
                            [
                                "id": .string(file.id), "name": .string(file.name), "type": .string(file.mimeType),
                                "size": .int(file.bytes.count), "text": .string(String(decoding: file.bytes, as: UTF8.self)),
                            ]
                        } ?? .null,
                    ]
                }
            ),
        ]
        object["gms_user"] = chat.gmsUser.map { .string($0) }
        object["away_position"] = chat.awayPosition.map { .int($0) }
        return object
    }
}
