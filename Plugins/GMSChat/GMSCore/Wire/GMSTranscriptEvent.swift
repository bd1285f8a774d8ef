#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// One row of a GMS chat transcript, from either API version, with its position in the transcript.
///
/// Positions start at 1 and every transcript event has one, typing notices included (v2's `index`; v1's
/// rows numbered back from the event's `transcriptPosition`). Ordering and deduplication go by it.
package struct GMSTranscriptEvent: Sendable, Hashable {
    package var position: Int
    /// The API's own name: v2 `Message`, `ParticipantJoined`, `TypingStarted`…; v1 `Message.Text`,
    /// `Notice.Joined`… (see ``GMSEventType``).
    package var type: GMSEventType
    package var party: GMSParty
    package var text: String
    /// Epoch milliseconds (v2 `utcTime`); nil when the event has no time of its own.
    package var utcMilliseconds: Int64?
    /// v2 `FileUploaded`: the file, from the row's `userData`.
    package var file: GMSChatFile?

    package init(position: Int, type: GMSEventType, party: GMSParty, text: String, utcMilliseconds: Int64? = nil, file: GMSChatFile? = nil) {
        self.position = position
        self.type = type
        self.party = party
        self.text = text
        self.utcMilliseconds = utcMilliseconds
        self.file = file
    }
}

/// A file a v2 `FileUploaded` row announces. gms-cometd.md §2 names the type (C1 `ChatV2MessageType`) but
/// not its fields; the row's `userData` is read with the hyphenated keys GMS uses for the file limits
/// (`upload-max-file-size`…, C2 `HttpResponse.java`): `file-id`, `file-name`, `file-size`, `file-type`
/// (decided; see the plugin's README). A row without a `file-id` carries no file the customer can fetch.
package struct GMSChatFile: Sendable, Hashable {
    /// What `fileDownload` takes (`…/file/<id>/download`).
    package var id: String
    package var name: String
    package var mimeType: String
    package var size: Int?

    package init(id: String, name: String, mimeType: String, size: Int? = nil) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.size = size
    }

    /// The file in a row's `userData`; nil without a `file-id`.
    package init?(userData: JSONValue?) {
        guard let id = userData?["file-id"]?.stringValue ?? userData?["file-id"]?.looseInteger.map(String.init), !id.isEmpty else { return nil }
        let name = userData?["file-name"]?.stringValue ?? ""
        self.init(
            id: id,
            name: name.isEmpty ? "file-\(id)" : name,
            mimeType: userData?["file-type"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream",
            size: userData?["file-size"]?.looseInteger
        )
    }
}

/// Who wrote a transcript row.
package struct GMSParty: Sendable, Hashable {
    package var nickname: String
    /// v2 `Client`, `Agent`, `External`, `Supervisor`, `System`; v1 `CLIENT`, `AGENT`… (compared without case).
    package var type: String
    /// v2 `participantId`; v1 has none of its own.
    package var participantID: String?

    package init(nickname: String, type: String, participantID: String? = nil) {
        self.nickname = nickname
        self.type = type
        self.participantID = participantID
    }

    /// The person at the desk (the chat's own customer): GMS echoes their rows too.
    package var isClient: Bool { self.type.lowercased() == "client" }
}

/// A transcript event type. v1 and v2 name the same things differently; ``normalized`` maps both onto
/// v1's names, which GMS's push filter (`filtering_chat_events`) and the seed use.
package struct GMSEventType: Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { self.rawValue }

    /// v1's name for the type: `Message.Text`, `Notice.Joined`, `Notice.Left`, `Notice.TypingStarted`,
    /// `Notice.TypingStopped`, `Notice.PushUrl`, `Notice.Custom`, or the raw name when it is neither v1's
    /// nor one of v2's known ones.
    package var normalized: String {
        switch self.rawValue {
        case "Message": "Message.Text"
        case "ParticipantJoined": "Notice.Joined"
        case "ParticipantLeft": "Notice.Left"
        case "TypingStarted": "Notice.TypingStarted"
        case "TypingStopped": "Notice.TypingStopped"
        case "PushUrl": "Notice.PushUrl"
        case "CustomNotice": "Notice.Custom"
        default: self.rawValue
        }
    }
}

/// Why a GMS event could not be read; it names fields and types, never content.
package struct GMSDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    package var problem: String
    package var description: String { self.problem }
    package init(problem: String) { self.problem = problem }

    static func wrong(_ key: String, _ value: JSONValue?, expected: String) -> GMSDecodeError {
        GMSDecodeError(problem: "field \"\(key)\" is \(value?.typeDescription ?? "missing"), expected \(expected)")
    }
}

extension JSONValue {
    /// An integer from a number or a numeric string: GMS sends positions both ways (v1 events strings,
    /// v2 numbers; clients send either).
    var looseInteger: Int? {
        switch self {
        case .number(let number) where number.isFinite && number == number.rounded() && abs(number) < 1e15: Int(number)
        case .string(let text): Int(text)
        default: nil
        }
    }
}
