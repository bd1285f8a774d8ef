/// Which chat API a chat was started with.
package enum GMSChatVersion: String, Sendable, Hashable {
    /// REST (`/genesys/1/service/…/ixn/chat`) plus `/_genesys` CometD events.
    case v1
    /// CometD operations on `/service/chatV2/<service>`.
    case v2
}

/// Who wrote a transcript row.
package enum GMSParty: String, Sendable, Hashable {
    case client, agent, external, supervisor

    /// v2 `from.type`.
    var v2Type: String { self.rawValue.prefix(1).uppercased() + self.rawValue.dropFirst() }
    /// v1 row cell 4.
    var v1Type: String { self.rawValue.uppercased() }
    /// v2 `from.participantId`: the customer is 1, the agent 2.
    var participantID: Int { self == .client ? 1 : 2 }
}

/// One transcript event. Every event of a chat, the customer's own included, gets the next index (from
/// 1): v2's `index`, and v1's position (an event's `transcriptPosition` is its last row's index).
package struct GMSTranscriptRow: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        case message, joined, left, typingStarted, typingStopped, pushURL, customNotice, nicknameUpdated, fileUploaded
    }

    package var index: Int
    package var kind: Kind
    package var party: GMSParty
    package var nickname: String
    package var text: String
    /// Milliseconds since 1970.
    package var utcTime: Int
    /// `FileUploaded`: the file, announced in the row's `userData`.
    package var file: GMSChatFile? = nil

    /// v2 `messages[].type`.
    var v2Type: String {
        switch self.kind {
        case .message: "Message"
        case .joined: "ParticipantJoined"
        case .left: "ParticipantLeft"
        case .typingStarted: "TypingStarted"
        case .typingStopped: "TypingStopped"
        case .pushURL: "PushUrl"
        case .customNotice: "CustomNotice"
        case .nicknameUpdated: "NicknameUpdated"
        case .fileUploaded: "FileUploaded"
        }
    }

    /// v1 row cell 0; nil for kinds v1 has no event for (a nickname change).
    var v1Type: String? {
        switch self.kind {
        case .message: "Message.Text"
        case .joined: "Notice.Joined"
        case .left: "Notice.Left"
        case .typingStarted: "Notice.TypingStarted"
        case .typingStopped: "Notice.TypingStopped"
        case .pushURL: "Notice.PushUrl"
        case .customNotice: "Notice.Custom"
        case .nicknameUpdated, .fileUploaded: nil
        }
    }

    /// v1 row cell 2: notices read as GMS writes them.
    var v1Text: String {
        switch self.kind {
        case .joined: "has joined the session"
        case .left: "has left the session"
        case .typingStarted: "is typing"
        case .typingStopped: "stopped typing"
        default: self.text
        }
    }

    /// The v2 `messages[]` element.
    var v2JSON: GMSJSON {
        var object: [String: GMSJSON] = [
            "from": ["nickname": .string(self.nickname), "participantId": .int(self.party.participantID), "type": .string(self.party.v2Type)],
            "index": .int(self.index),
            "type": .string(self.v2Type),
            "utcTime": .int(self.utcTime),
        ]
        if !self.text.isEmpty { object["text"] = .string(self.text) }
        if let file = self.file {
            object["userData"] = [
                "file-id": .string(file.id), "file-name": .string(file.name), "file-size": .string(String(file.bytes.count)),
                "file-type": .string(file.mimeType),
            ]
        }
        return .object(object)
    }

    /// The v1 `transcriptToShow` row: `[type, nickname, text, seconds since the chat started, party]`,
    /// every cell a string as in GMS's CometD events.
    func v1JSON(startedAt: Int) -> GMSJSON? {
        guard let type = self.v1Type else { return nil }
        let offset = max(0, (self.utcTime - startedAt) / 1000)
        return [.string(type), .string(self.nickname), .string(self.v1Text), .string(String(offset)), .string(self.party.v1Type)]
    }
}

/// A file in a v2 chat, sent by the agent or uploaded by the customer (`fileUpload`).
package struct GMSChatFile: Sendable, Hashable {
    package var id: String
    package var name: String
    package var mimeType: String
    package var bytes: [UInt8]
}
