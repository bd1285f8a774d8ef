#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A GMS Chat API v1 event on `/_genesys` (the seed; gms-cometd.md §5.2):
/// `{"id":…,"tag":"service.chat.refresh.<service id>","message":{"transcriptPosition":"2",
/// "chatSessionId":…,"chatIxnState":"TRANSCRIPT","startedAt":…,"transcriptToShow":[[type, nickname,
/// text, offset, party type], …]}}`. One channel carries every chat, so the tag names the service.
package struct GMSChatV1Event: Sendable, Hashable {
    /// The service id from the tag (`180-…`), or nil when the tag is not a chat refresh.
    package var serviceID: String?
    package var chatSessionID: String?
    /// `CONNECTED`, `TRANSCRIPT` or `DISCONNECTED` (the chat is over).
    package var state: String?
    /// The position of the event's last row.
    package var transcriptPosition: Int?
    /// When the chat started, as GMS wrote it (`2015-02-10T22:39:23Z`).
    package var startedAt: String?
    package var rows: [GMSTranscriptEvent]

    /// The tag of a chat refresh event, before the service id.
    package static let tagPrefix = "service.chat.refresh."

    package init(serviceID: String?, chatSessionID: String?, state: String?, transcriptPosition: Int?, startedAt: String?, rows: [GMSTranscriptEvent])
    {
        self.serviceID = serviceID
        self.chatSessionID = chatSessionID
        self.state = state
        self.transcriptPosition = transcriptPosition
        self.startedAt = startedAt
        self.rows = rows
    }

    /// Reads an event's `data`. Rows are numbered back from `transcriptPosition`, the position of the
    /// last one (the seed's catch-up of two rows ends at "6" after a disconnect at "4").
    package init(decoding data: JSONValue) throws(GMSDecodeError) {
        guard case .object(let object) = data else {
            throw GMSDecodeError(problem: "the chat event's data is \(data.typeDescription), expected an object")
        }
        let tag = object["tag"]?.stringValue
        let serviceID = tag.flatMap { $0.hasPrefix(Self.tagPrefix) ? String($0.dropFirst(Self.tagPrefix.count)) : nil }
        guard case .object(let message)? = object["message"] else {
            throw GMSDecodeError.wrong("message", object["message"], expected: "an object")
        }
        let position = message["transcriptPosition"]?.looseInteger
        var rows: [GMSTranscriptEvent] = []
        switch message["transcriptToShow"] {
        case nil, .null?:
            break
        case .array(let table)?:
            guard let position, position >= table.count else {
                throw GMSDecodeError.wrong(
                    "transcriptPosition",
                    message["transcriptPosition"],
                    expected: "a position at or after the last of \(table.count) rows"
                )
            }
            for (number, row) in table.enumerated() {
                do {
                    rows.append(try Self.row(row, position: position - (table.count - 1) + number))
                } catch {
                    throw GMSDecodeError(problem: "row \(number + 1) of \(table.count): \(error.problem)")
                }
            }
        case let other?:
            throw GMSDecodeError.wrong("transcriptToShow", other, expected: "an array of rows")
        }
        self.init(
            serviceID: serviceID,
            chatSessionID: message["chatSessionId"]?.stringValue,
            state: message["chatIxnState"]?.stringValue,
            transcriptPosition: position,
            startedAt: message["startedAt"]?.stringValue,
            rows: rows
        )
    }

    /// `[type, nickname, text, offset, party type]`; the offset (seconds since `startedAt`, as far as the
    /// sources tell) is not needed and not kept.
    private static func row(_ value: JSONValue, position: Int) throws(GMSDecodeError) -> GMSTranscriptEvent {
        guard case .array(let cells) = value, cells.count >= 3 else {
            throw GMSDecodeError(problem: "a row is \(value.typeDescription), expected an array of 5 cells")
        }
        guard let type = cells[0].stringValue, !type.isEmpty else {
            throw GMSDecodeError.wrong("type", cells[0], expected: "an event type")
        }
        let party = GMSParty(nickname: cells[1].stringValue ?? "", type: cells.count > 4 ? cells[4].stringValue ?? "" : "")
        return GMSTranscriptEvent(position: position, type: GMSEventType(type), party: party, text: cells[2].stringValue ?? "")
    }
}
