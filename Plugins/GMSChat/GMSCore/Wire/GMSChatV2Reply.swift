#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A GMS Chat API v2 event on `/service/chatV2/<service>` (gms-cometd.md §2): the answer to an operation,
/// or a notification, with the chat's keys and the transcript rows since the position asked for.
package struct GMSChatV2Reply: Sendable, Hashable {
    package var chatID: String?
    package var userID: String?
    package var secureKey: String?
    package var alias: String?
    /// 0 is OK.
    package var statusCode: Int
    package var chatEnded: Bool
    /// The position of the next row after `messages`.
    package var nextPosition: Int?
    package var messages: [GMSTranscriptEvent]
    /// `errors[].advice` (with the code), when GMS refused the operation.
    package var errors: [String]

    package init(
        chatID: String? = nil,
        userID: String? = nil,
        secureKey: String? = nil,
        alias: String? = nil,
        statusCode: Int = 0,
        chatEnded: Bool = false,
        nextPosition: Int? = nil,
        messages: [GMSTranscriptEvent] = [],
        errors: [String] = []
    ) {
        self.chatID = chatID
        self.userID = userID
        self.secureKey = secureKey
        self.alias = alias
        self.statusCode = statusCode
        self.chatEnded = chatEnded
        self.nextPosition = nextPosition
        self.messages = messages
        self.errors = errors
    }

    /// Reads an event's `data`. A row without a usable `index` or `type` fails the event: the transcript
    /// cannot be kept in order around it.
    package init(decoding data: JSONValue) throws(GMSDecodeError) {
        guard case .object(let object) = data else {
            throw GMSDecodeError(problem: "the chat event's data is \(data.typeDescription), expected an object")
        }
        self.init()
        self.chatID = object["chatId"]?.stringValue
        self.userID = object["userId"]?.stringValue
        self.secureKey = object["secureKey"]?.stringValue
        // Aliases are numbers in some GMS versions, strings in others.
        self.alias = object["alias"]?.stringValue ?? object["alias"]?.looseInteger.map(String.init)
        self.statusCode = object["statusCode"]?.looseInteger ?? 0
        self.chatEnded = object["chatEnded"]?.boolValue ?? false
        self.nextPosition = object["nextPosition"]?.looseInteger
        switch object["messages"] {
        case nil, .null?:
            break
        case .array(let rows)?:
            for (number, row) in rows.enumerated() {
                do {
                    self.messages.append(try Self.event(row))
                } catch {
                    throw GMSDecodeError(problem: "message \(number + 1) of \(rows.count): \(error.problem)")
                }
            }
        case let other?:
            throw GMSDecodeError.wrong("messages", other, expected: "an array")
        }
        for error in object["errors"]?.arrayValue ?? [] {
            let code = error["code"]?.looseInteger.map { "\($0): " } ?? ""
            self.errors.append(code + (error["advice"]?.stringValue ?? error["message"]?.stringValue ?? "no reason given"))
        }
    }

    private static func event(_ row: JSONValue) throws(GMSDecodeError) -> GMSTranscriptEvent {
        guard case .object(let object) = row else {
            throw GMSDecodeError(problem: "a message is \(row.typeDescription), expected an object")
        }
        guard let index = object["index"]?.looseInteger, index >= 1 else {
            throw GMSDecodeError.wrong("index", object["index"], expected: "a position from 1")
        }
        guard let type = object["type"]?.stringValue, !type.isEmpty else {
            throw GMSDecodeError.wrong("type", object["type"], expected: "an event type")
        }
        let from = object["from"]
        let party = GMSParty(
            nickname: from?["nickname"]?.stringValue ?? "",
            type: from?["type"]?.stringValue ?? "",
            participantID: from?["participantId"]?.looseInteger.map(String.init) ?? from?["participantId"]?.stringValue
        )
        // The text of a push URL is the URL; of a nickname change, the new name.
        let text = object["text"]?.stringValue ?? object["pushUrl"]?.stringValue ?? object["nickname"]?.stringValue ?? ""
        let utc = object["utcTime"]?.numberValue.flatMap { $0.isFinite && abs($0) < 1e16 ? Int64($0) : nil }
        let file = type == "FileUploaded" ? GMSChatFile(userData: object["userData"]) : nil
        return GMSTranscriptEvent(position: index, type: GMSEventType(type), party: party, text: text, utcMilliseconds: utc, file: file)
    }
}
