/// The `data` of a client event, read for the event types the gateway acts on (field names from the CXone
/// mobile SDK's sent events). A frame whose data lacks what its type needs is refused as a whole, so the
/// gateway answers it with a server error before it counts or handles it.
enum SimCXoneClientEvent: Sendable, Hashable {
    /// `{"authorization"?: {"authorizationCode", "codeVerifier"}, "sdkPlatform", "sdkVersion", …}`.
    case authorizeCustomer(code: String?, verifier: String?)
    /// `{"accessToken": {"token"}}`.
    case reconnectCustomer(token: String)
    case refreshToken(token: String)
    /// `{"thread": {"idOnExternalPlatform"}}`, or no data: the customer's newest thread.
    case recoverThread(threadId: String?)
    case recoverLivechat(threadId: String?)
    case fetchThreadList
    case loadThreadMetadata(threadId: String)
    case sendMessage(SimCXoneSentMessage)
    /// The welcome message: sent by the client, but the brand's (outbound).
    case sendOutbound(SimCXoneSentMessage)
    /// `{"thread": {"idOnExternalPlatform"}, "contact": {"id"}}`.
    case endContact(threadId: String, contactId: String)
    /// `{"visitorEvents": [analytics event, …]}`.
    case storeVisitorEvents([CXoneGatewayAnalyticsEvent])
    /// `{"scrollToken", "thread": {"idOnExternalPlatform"}, "oldestMessageDatetime"}`.
    case loadMoreMessages(threadId: String, scrollToken: String)
    /// `{"consumerContact": {"id"}, "consumerRecipients": [{"idOnExternalPlatform": email}, …]}` (the SDK's
    /// SendTranscriptDataDTO).
    case sendTranscript(contactId: String, recipients: [String])
    /// Typing, seen, custom fields, or a type the gateway does not know: accepted.
    case other(eventType: String)

    /// Event types whose data must name a thread even though the gateway only accepts them.
    private static let threadEvents: Set<String> = [
        "MessageSeenByCustomer", "SenderTypingStarted", "SenderTypingEnded", "SetContactCustomFields",
    ]

    static func read(_ frame: SimCXoneClientFrame) throws(SimCXoneWireError) -> SimCXoneClientEvent {
        let data = frame.data
        let type = frame.eventType
        func required(_ value: GMSJSON?, _ path: String) throws(SimCXoneWireError) -> String {
            guard let text = value?.string else { throw SimCXoneWireError("\(type): data.\(path) is missing or not a string") }
            return text
        }
        func thread() throws(SimCXoneWireError) -> String { try required(data["thread"]?["idOnExternalPlatform"], "thread.idOnExternalPlatform") }
        /// RecoverThread and RecoverLivechat may come without data (or with `null`).
        func optionalThread() throws(SimCXoneWireError) -> String? { data == .null ? nil : try thread() }

        switch type {
        case "AuthorizeCustomer":
            guard data.object != nil else { throw SimCXoneWireError("\(type): no data object") }
            let oauth = data["authorization"]
            return .authorizeCustomer(code: oauth?["authorizationCode"]?.string, verifier: oauth?["codeVerifier"]?.string)
        case "ReconnectCustomer": return .reconnectCustomer(token: try required(data["accessToken"]?["token"], "accessToken.token"))
        case "RefreshToken": return .refreshToken(token: try required(data["accessToken"]?["token"], "accessToken.token"))
        case "RecoverThread": return .recoverThread(threadId: try optionalThread())
        case "RecoverLivechat": return .recoverLivechat(threadId: try optionalThread())
        case "FetchThreadList": return .fetchThreadList
        case "LoadThreadMetadata": return .loadThreadMetadata(threadId: try thread())
        case "SendMessage": return .sendMessage(try SimCXoneSentMessage.read(data, eventType: type))
        case "SendOutbound": return .sendOutbound(try SimCXoneSentMessage.read(data, eventType: type))
        case "LoadMoreMessages":
            return .loadMoreMessages(threadId: try thread(), scrollToken: try required(data["scrollToken"], "scrollToken"))
        case "EndContact": return .endContact(threadId: try thread(), contactId: try required(data["contact"]?["id"], "contact.id"))
        case "SendTranscript":
            var recipients: [String] = []
            for recipient in data["consumerRecipients"]?.array ?? [] {
                recipients.append(try required(recipient["idOnExternalPlatform"], "consumerRecipients[].idOnExternalPlatform"))
            }
            guard !recipients.isEmpty else { throw SimCXoneWireError("\(type): data.consumerRecipients names no one") }
            return .sendTranscript(contactId: try required(data["consumerContact"]?["id"], "consumerContact.id"), recipients: recipients)
        case "StoreVisitorEvents":
            guard let events = data["visitorEvents"]?.array else { throw SimCXoneWireError("\(type): data.visitorEvents is not an array") }
            var read: [CXoneGatewayAnalyticsEvent] = []
            for event in events { read.append(try CXoneGatewayAnalyticsEvent.read(event)) }
            return .storeVisitorEvents(read)
        default:
            if Self.threadEvents.contains(type) { _ = try thread() }
            return .other(eventType: type)
        }
    }
}

/// SendMessage and SendOutbound: `{"thread": {"idOnExternalPlatform", "threadName"?}, "messageContent":
/// {"type", "payload", …}, "idOnExternalPlatform", "attachments"?, "contact"?: {"customFields": [{"ident",
/// "value"}]}, …}`.
struct SimCXoneSentMessage: Sendable, Hashable {
    var threadId: String
    var threadName: String?
    var id: String
    var content: GMSJSON
    var attachments: [GMSJSON]
    /// The contact's custom fields (the pre-chat form's answers), in order.
    var contactFields: [Field]

    struct Field: Sendable, Hashable {
        var ident: String
        var value: String
    }

    /// The members of `messageContent` and of an attachment the SDK defines; the echo carries only these.
    private static let contentKeys = ["type", "payload", "postback", "fallbackText", "parameters"]
    private static let attachmentKeys = ["url", "friendlyName", "mimeType", "fileName"]

    static func read(_ data: GMSJSON, eventType type: String) throws(SimCXoneWireError) -> SimCXoneSentMessage {
        guard let threadId = data["thread"]?["idOnExternalPlatform"]?.string else {
            throw SimCXoneWireError("\(type): data.thread.idOnExternalPlatform is missing or not a string")
        }
        guard let id = data["idOnExternalPlatform"]?.string else {
            throw SimCXoneWireError("\(type): data.idOnExternalPlatform is missing or not a string")
        }
        guard let content = data["messageContent"], let contentType = content["type"]?.string else {
            throw SimCXoneWireError("\(type): data.messageContent.type is missing or not a string")
        }
        if contentType == "TEXT", content["payload"]?["text"]?.string == nil {
            throw SimCXoneWireError("\(type): a TEXT message without data.messageContent.payload.text")
        }
        var attachments: [GMSJSON] = []
        for attachment in data["attachments"]?.array ?? [] {
            guard attachment["url"]?.string != nil else { throw SimCXoneWireError("\(type): an attachment without a url") }
            attachments.append(Self.only(Self.attachmentKeys, of: attachment))
        }
        var fields: [Field] = []
        for field in data["contact"]?["customFields"]?.array ?? [] {
            guard let ident = field["ident"]?.string, let value = field["value"]?.string else {
                throw SimCXoneWireError("\(type): a contact custom field without ident and value strings")
            }
            fields.append(Field(ident: ident, value: value))
        }
        return SimCXoneSentMessage(
            threadId: threadId,
            threadName: data["thread"]?["threadName"]?.string,
            id: id,
            content: Self.only(Self.contentKeys, of: content),
            attachments: attachments,
            contactFields: fields
        )
    }

    private static func only(_ keys: [String], of json: GMSJSON) -> GMSJSON {
        .object((json.object ?? [:]).filter { keys.contains($0.key) && $0.value != .null })
    }
}
