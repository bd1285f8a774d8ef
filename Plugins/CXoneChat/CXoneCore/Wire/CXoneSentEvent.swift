/// The typed data of an event the client sends, by its `eventType`.
package enum CXoneSentEvent: Sendable, Hashable {
    case authorizeCustomer(CXoneWire.AuthorizeCustomer)
    case reconnectCustomer(CXoneWire.TokenData)
    case refreshToken(CXoneWire.TokenData)
    /// `nil`: recover whatever thread the customer has (single-thread channels on first connect).
    case recoverThread(CXoneWire.ThreadData?)
    case recoverLivechat(CXoneWire.ThreadData?)
    case fetchThreadList
    case loadThreadMetadata(CXoneWire.ThreadData)
    case sendMessage(CXoneWire.SendMessage)
    case sendOutbound(CXoneWire.SendOutbound)
    case endContact(CXoneWire.EndContact)
    case loadMoreMessages(CXoneWire.LoadMoreMessages)
    case messageSeenByCustomer(CXoneWire.ThreadData)
    case senderTypingStarted(CXoneWire.ThreadData)
    case senderTypingEnded(CXoneWire.ThreadData)
    case setContactCustomFields(CXoneWire.SetContactCustomFields)
    case storeVisitorEvents(CXoneWire.StoreVisitorEvents)
    case sendTranscript(CXoneWire.SendTranscript)
    /// Another event type (the simulator keeps what a client sent).
    case unknown(eventType: String, data: CXoneJSON?)

    /// The wire name, e.g. `SendMessage`.
    package var eventType: String {
        switch self {
        case .authorizeCustomer: "AuthorizeCustomer"
        case .reconnectCustomer: "ReconnectCustomer"
        case .refreshToken: "RefreshToken"
        case .recoverThread: "RecoverThread"
        case .recoverLivechat: "RecoverLivechat"
        case .fetchThreadList: "FetchThreadList"
        case .loadThreadMetadata: "LoadThreadMetadata"
        case .sendMessage: "SendMessage"
        case .sendOutbound: "SendOutbound"
        case .endContact: "EndContact"
        case .loadMoreMessages: "LoadMoreMessages"
        case .messageSeenByCustomer: "MessageSeenByCustomer"
        case .senderTypingStarted: "SenderTypingStarted"
        case .senderTypingEnded: "SenderTypingEnded"
        case .setContactCustomFields: "SetContactCustomFields"
        case .storeVisitorEvents: "StoreVisitorEvents"
        case .sendTranscript: "SendTranscript"
        case .unknown(let eventType, _): eventType
        }
    }

    /// Whether the payload names the customer `customerIdentity` (else `consumerIdentity`), as the SDK's
    /// `EventPayloadDTO` decides it.
    package var usesCustomerIdentityKey: Bool {
        switch self {
        case .sendMessage, .recoverThread, .recoverLivechat, .loadMoreMessages, .setContactCustomFields,
            .senderTypingStarted, .senderTypingEnded, .messageSeenByCustomer, .authorizeCustomer,
            .fetchThreadList, .loadThreadMetadata:
            true
        default:
            false
        }
    }

    /// The frame's `action`: `register` for AuthorizeCustomer, `chatWindowEvent` for every other event.
    package var action: String { self.eventType == "AuthorizeCustomer" ? "register" : "chatWindowEvent" }

    static func decode<Key: CodingKey>(
        _ eventType: String,
        from container: KeyedDecodingContainer<Key>,
        forKey key: Key
    ) throws -> CXoneSentEvent {
        func data<T: Decodable>(_ type: T.Type) throws -> T { try container.decode(T.self, forKey: key) }
        func optionalData<T: Decodable>(_ type: T.Type) throws -> T? { try container.decodeIfPresent(T.self, forKey: key) }
        do {
            switch eventType {
            case "AuthorizeCustomer": return .authorizeCustomer(try data(CXoneWire.AuthorizeCustomer.self))
            case "ReconnectCustomer": return .reconnectCustomer(try data(CXoneWire.TokenData.self))
            case "RefreshToken": return .refreshToken(try data(CXoneWire.TokenData.self))
            case "RecoverThread": return .recoverThread(try optionalData(CXoneWire.ThreadData.self))
            case "RecoverLivechat": return .recoverLivechat(try optionalData(CXoneWire.ThreadData.self))
            case "FetchThreadList": return .fetchThreadList
            case "LoadThreadMetadata": return .loadThreadMetadata(try data(CXoneWire.ThreadData.self))
            case "SendMessage": return .sendMessage(try data(CXoneWire.SendMessage.self))
            case "SendOutbound": return .sendOutbound(try data(CXoneWire.SendOutbound.self))
            case "EndContact": return .endContact(try data(CXoneWire.EndContact.self))
            case "LoadMoreMessages": return .loadMoreMessages(try data(CXoneWire.LoadMoreMessages.self))
            case "MessageSeenByCustomer": return .messageSeenByCustomer(try data(CXoneWire.ThreadData.self))
            case "SenderTypingStarted": return .senderTypingStarted(try data(CXoneWire.ThreadData.self))
            case "SenderTypingEnded": return .senderTypingEnded(try data(CXoneWire.ThreadData.self))
            case "SetContactCustomFields": return .setContactCustomFields(try data(CXoneWire.SetContactCustomFields.self))
            case "StoreVisitorEvents": return .storeVisitorEvents(try data(CXoneWire.StoreVisitorEvents.self))
            case "SendTranscript": return .sendTranscript(try data(CXoneWire.SendTranscript.self))
            default: return .unknown(eventType: eventType, data: try optionalData(CXoneJSON.self))
            }
        } catch {
            throw CXoneEventDataFailure(eventType: eventType, underlying: error)
        }
    }

    func encodeData<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .authorizeCustomer(let value): try container.encode(value, forKey: key)
        case .reconnectCustomer(let value), .refreshToken(let value): try container.encode(value, forKey: key)
        case .recoverThread(let value), .recoverLivechat(let value): try container.encodeIfPresent(value, forKey: key)
        case .fetchThreadList: break
        case .loadThreadMetadata(let value), .messageSeenByCustomer(let value),
            .senderTypingStarted(let value), .senderTypingEnded(let value):
            try container.encode(value, forKey: key)
        case .sendMessage(let value): try container.encode(value, forKey: key)
        case .sendOutbound(let value): try container.encode(value, forKey: key)
        case .endContact(let value): try container.encode(value, forKey: key)
        case .loadMoreMessages(let value): try container.encode(value, forKey: key)
        case .setContactCustomFields(let value): try container.encode(value, forKey: key)
        case .storeVisitorEvents(let value): try container.encode(value, forKey: key)
        case .sendTranscript(let value): try container.encode(value, forKey: key)
        case .unknown(_, let data): try container.encodeIfPresent(data, forKey: key)
        }
    }
}
