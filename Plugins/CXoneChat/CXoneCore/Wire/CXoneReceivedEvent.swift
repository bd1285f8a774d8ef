/// The typed data of an event the gateway sends, by its `eventType`. Event types the wire does not know
/// decode to ``unknown(eventType:)``: new server features must not break a running channel.
package enum CXoneReceivedEvent: Sendable, Hashable {
    case consumerAuthorized(CXoneWire.ConsumerAuthorized)
    case consumerReconnected(CXoneWire.ConsumerAuthorized)
    case tokenRefreshed(CXoneWire.TokenRefreshed)
    case threadRecovered(CXoneWire.ThreadRecovered)
    case threadListFetched(CXoneWire.ThreadList)
    case threadMetadataLoaded(CXoneWire.ThreadMetadata)
    case livechatRecovered(CXoneWire.ThreadRecovered)
    case messageCreated(CXoneWire.MessageCreated)
    case moreMessagesLoaded(CXoneWire.MoreMessagesLoaded)
    case caseCreated(CXoneWire.CaseEvent)
    case caseStatusChanged(CXoneWire.CaseEvent)
    case fireProactiveAction(CXoneWire.ProactiveAction)
    case eventInS3(CXoneWire.EventInS3)
    /// The agent started (`true`) or stopped typing: SenderTypingStarted / SenderTypingEnded.
    case senderTyping(CXoneWire.SenderTyping, started: Bool)
    case setPositionInQueue(CXoneWire.PositionInQueue)
    case caseInboxAssigneeChanged(CXoneWire.InboxAssigneeChanged)
    case messageReadChanged(CXoneWire.MessageReadChanged)
    /// MessageSeenChanged (the SDK's `MessageSeenChangedDTO`, `{"message"}` as MessageReadChanged): a message
    /// with its seen statistics changed; the SDK merges it into its thread (`processMessageSeenChangedEvent`).
    case messageSeenChanged(CXoneWire.MessageReadChanged)
    /// TranscriptSent, the answer to SendTranscript (the SDK reads it as a `GenericEventDTO`: no data).
    case transcriptSent
    /// An event type the wire does not interpret; its data is skipped.
    case unknown(eventType: String)

    /// The wire name, e.g. `MessageCreated`.
    package var eventType: String {
        switch self {
        case .consumerAuthorized: "ConsumerAuthorized"
        case .consumerReconnected: "ConsumerReconnected"
        case .tokenRefreshed: "TokenRefreshed"
        case .threadRecovered: "ThreadRecovered"
        case .threadListFetched: "ThreadListFetched"
        case .threadMetadataLoaded: "ThreadMetadataLoaded"
        case .livechatRecovered: "LivechatRecovered"
        case .messageCreated: "MessageCreated"
        case .moreMessagesLoaded: "MoreMessagesLoaded"
        case .caseCreated: "CaseCreated"
        case .caseStatusChanged: "CaseStatusChanged"
        case .fireProactiveAction: "FireProactiveAction"
        case .eventInS3: "EventInS3"
        case .senderTyping(_, let started): started ? "SenderTypingStarted" : "SenderTypingEnded"
        case .setPositionInQueue: "SetPositionInQueue"
        case .caseInboxAssigneeChanged: "CaseInboxAssigneeChanged"
        case .messageReadChanged: "MessageReadChanged"
        case .messageSeenChanged: "MessageSeenChanged"
        case .transcriptSent: "TranscriptSent"
        case .unknown(let eventType): eventType
        }
    }

    /// The `eventObject` the gateway puts beside pushed events (the SDK requires it on MessageCreated,
    /// CaseStatusChanged and FireProactiveAction).
    var eventObject: String? {
        switch self {
        case .messageCreated: "Message"
        case .caseCreated, .caseStatusChanged: "Case"
        case .fireProactiveAction: "ChatWindow"
        case .threadRecovered, .threadListFetched, .threadMetadataLoaded, .livechatRecovered, .moreMessagesLoaded: "Thread"
        default: nil
        }
    }

    /// Decodes `key` of `container` as the data of `eventType`; absent data is an error only where the
    /// event cannot mean anything without it.
    static func decode<Key: CodingKey>(
        _ eventType: String,
        from container: KeyedDecodingContainer<Key>,
        forKey key: Key
    ) throws -> CXoneReceivedEvent {
        func data<T: Decodable>(_ type: T.Type) throws -> T { try container.decode(T.self, forKey: key) }
        func optionalData<T: Decodable>(_ type: T.Type) throws -> T? { try container.decodeIfPresent(T.self, forKey: key) }
        do {
            switch eventType {
            case "ConsumerAuthorized": return .consumerAuthorized(try optionalData(CXoneWire.ConsumerAuthorized.self) ?? .init())
            case "ConsumerReconnected": return .consumerReconnected(try optionalData(CXoneWire.ConsumerAuthorized.self) ?? .init())
            case "TokenRefreshed": return .tokenRefreshed(try data(CXoneWire.TokenRefreshed.self))
            case "ThreadRecovered": return .threadRecovered(try data(CXoneWire.ThreadRecovered.self))
            case "ThreadListFetched": return .threadListFetched(try optionalData(CXoneWire.ThreadList.self) ?? .init(threads: []))
            case "ThreadMetadataLoaded": return .threadMetadataLoaded(try optionalData(CXoneWire.ThreadMetadata.self) ?? .init())
            case "LivechatRecovered": return .livechatRecovered(try data(CXoneWire.ThreadRecovered.self))
            case "MessageCreated": return .messageCreated(try data(CXoneWire.MessageCreated.self))
            case "MoreMessagesLoaded": return .moreMessagesLoaded(try data(CXoneWire.MoreMessagesLoaded.self))
            case "CaseCreated": return .caseCreated(try data(CXoneWire.CaseEvent.self))
            case "CaseStatusChanged": return .caseStatusChanged(try data(CXoneWire.CaseEvent.self))
            case "FireProactiveAction": return .fireProactiveAction(try data(CXoneWire.ProactiveAction.self))
            case "EventInS3": return .eventInS3(try data(CXoneWire.EventInS3.self))
            case "SenderTypingStarted": return .senderTyping(try data(CXoneWire.SenderTyping.self), started: true)
            case "SenderTypingEnded": return .senderTyping(try data(CXoneWire.SenderTyping.self), started: false)
            case "SetPositionInQueue": return .setPositionInQueue(try data(CXoneWire.PositionInQueue.self))
            case "CaseInboxAssigneeChanged": return .caseInboxAssigneeChanged(try data(CXoneWire.InboxAssigneeChanged.self))
            case "MessageReadChanged": return .messageReadChanged(try data(CXoneWire.MessageReadChanged.self))
            case "MessageSeenChanged": return .messageSeenChanged(try data(CXoneWire.MessageReadChanged.self))
            case "TranscriptSent": return .transcriptSent
            default: return .unknown(eventType: eventType)
            }
        } catch {
            throw CXoneEventDataFailure(eventType: eventType, underlying: error)
        }
    }

    /// Encodes the data under `key` (nothing for an unknown event).
    func encodeData<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .consumerAuthorized(let value), .consumerReconnected(let value): try container.encode(value, forKey: key)
        case .tokenRefreshed(let value): try container.encode(value, forKey: key)
        case .threadRecovered(let value), .livechatRecovered(let value): try container.encode(value, forKey: key)
        case .threadListFetched(let value): try container.encode(value, forKey: key)
        case .threadMetadataLoaded(let value): try container.encode(value, forKey: key)
        case .messageCreated(let value): try container.encode(value, forKey: key)
        case .moreMessagesLoaded(let value): try container.encode(value, forKey: key)
        case .caseCreated(let value), .caseStatusChanged(let value): try container.encode(value, forKey: key)
        case .fireProactiveAction(let value): try container.encode(value, forKey: key)
        case .eventInS3(let value): try container.encode(value, forKey: key)
        case .senderTyping(let value, _): try container.encode(value, forKey: key)
        case .setPositionInQueue(let value): try container.encode(value, forKey: key)
        case .caseInboxAssigneeChanged(let value): try container.encode(value, forKey: key)
        case .messageReadChanged(let value), .messageSeenChanged(let value): try container.encode(value, forKey: key)
        case .transcriptSent, .unknown: break
        }
    }
}
