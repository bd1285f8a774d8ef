package import FoundationEssentials

/// One text frame from the CXone chat gateway to the client, decoded; or, for the simulator, built and
/// encoded.
///
/// The shapes: the six-character `"pong"` (the heartbeat's answer); a postback
/// `{"eventId", "postback": {"eventType", "data"}}` answering the request with that `eventId`; a pushed
/// event `{"eventId", "eventType", "createdAt", "data"}`; an operation error
/// `{"eventId", "error": {"errorCode", "errorMessage", "transactionId"}}`; a server error
/// `{"message", "connectionId", "requestId"}`.
package enum CXoneInbound: Sendable, Hashable {
    case pong
    case postback(eventId: CXoneID, event: CXoneReceivedEvent)
    case event(eventId: CXoneID, createdAt: Date?, event: CXoneReceivedEvent)
    case operationError(CXoneOperationError)
    case serverError(CXoneServerError)

    /// The event of a postback or push.
    package var receivedEvent: CXoneReceivedEvent? {
        switch self {
        case .postback(_, let event), .event(_, _, let event): event
        default: nil
        }
    }

    /// The `eventId` of the request this frame answers: a postback's `eventId`, an operation error's
    /// `transactionId` (else its `eventId`), a server error's `requestId`; `nil` for pushes and pongs.
    package var answeredRequestId: CXoneID? {
        switch self {
        case .postback(let eventId, _): eventId
        case .operationError(let error): error.transactionId ?? error.eventId
        case .serverError(let error): error.requestId.map { CXoneID($0) }
        default: nil
        }
    }

    /// The frame's bytes exactly: `"pong"` is the six characters with their quotes.
    package static let pongText: [UInt8] = Array("\"pong\"".utf8)

    /// Decodes one text frame. Limits are checked before any parsing; every failure is a
    /// ``CXoneWireError`` naming the frame's size, the field and the event type.
    package static func decode(_ bytes: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) throws(CXoneWireError) -> CXoneInbound {
        try self.decode(bytes, limits: limits, subject: "frame")
    }

    static func decode(_ bytes: [UInt8], limits: CXoneWireLimits, subject: String) throws(CXoneWireError) -> CXoneInbound {
        if Self.isPong(bytes) { return .pong }
        return try CXoneWireCoding.decode(InboundFrame.self, from: bytes, limits: limits, subject: subject).value
    }

    /// The frame's text, as the gateway sends it.
    package func encoded() throws(CXoneWireError) -> [UInt8] {
        if case .pong = self { return Self.pongText }
        return try CXoneWireCoding.encode(InboundFrame(value: self), subject: "frame")
    }

    private static func isPong(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 6, bytes.count <= 64 else { return false }
        var slice = bytes[...]
        while let first = slice.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { slice = slice.dropLast() }
        return slice.elementsEqual(Self.pongText)
    }
}

/// `{"eventId", "error": {"errorCode", "errorMessage", "transactionId"}}`: a request failed, e.g.
/// `RecoveringThreadFailed` (no thread yet) or `ConsumerAuthorizationFailed`. Match it to the request by
/// ``transactionId`` (falling back to ``eventId``).
package struct CXoneOperationError: Sendable, Hashable, Codable {
    package var eventId: CXoneID?
    package var errorCode: String
    package var errorMessage: String?
    package var transactionId: CXoneID?

    package init(eventId: CXoneID? = nil, errorCode: String, errorMessage: String? = nil, transactionId: CXoneID? = nil) {
        self.eventId = eventId
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.transactionId = transactionId
    }
}

/// `{"message", "connectionId", "requestId"}`: the gateway could not handle a frame at all.
package struct CXoneServerError: Sendable, Hashable, Codable {
    package var message: String
    package var connectionId: String?
    package var requestId: String?

    package init(message: String, connectionId: String? = nil, requestId: String? = nil) {
        self.message = message
        self.connectionId = connectionId
        self.requestId = requestId
    }
}

/// The Codable form of ``CXoneInbound``: one pass, the event type read before its data.
struct InboundFrame: Codable {
    var value: CXoneInbound

    init(value: CXoneInbound) { self.value = value }

    enum Keys: String, CodingKey {
        case eventId, eventType, eventObject, createdAt, data, postback, error, message, connectionId, requestId
    }
    enum PostbackKeys: String, CodingKey { case eventType, data }
    enum ErrorKeys: String, CodingKey { case errorCode, errorMessage, transactionId }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.error) {
            let error = try container.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            self.value = .operationError(
                CXoneOperationError(
                    eventId: try container.decodeIfPresent(CXoneID.self, forKey: .eventId),
                    errorCode: try error.decode(String.self, forKey: .errorCode),
                    errorMessage: try error.decodeIfPresent(String.self, forKey: .errorMessage),
                    transactionId: try error.decodeIfPresent(CXoneID.self, forKey: .transactionId)
                )
            )
        } else if container.contains(.postback) {
            let eventId = try container.decode(CXoneID.self, forKey: .eventId)
            let postback = try container.nestedContainer(keyedBy: PostbackKeys.self, forKey: .postback)
            let eventType = try postback.decode(String.self, forKey: .eventType)
            self.value = .postback(eventId: eventId, event: try CXoneReceivedEvent.decode(eventType, from: postback, forKey: .data))
        } else if container.contains(.eventType) {
            let eventType = try container.decode(String.self, forKey: .eventType)
            do {
                let eventId = try container.decode(CXoneID.self, forKey: .eventId)
                let createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt)
                let event = try CXoneReceivedEvent.decode(eventType, from: container, forKey: .data)
                self.value = .event(eventId: eventId, createdAt: createdAt, event: event)
            } catch let failure as CXoneEventDataFailure {
                throw failure
            } catch {
                throw CXoneEventDataFailure(eventType: eventType, underlying: error)
            }
        } else if container.contains(.message) {
            self.value = .serverError(
                CXoneServerError(
                    message: try container.decode(String.self, forKey: .message),
                    connectionId: try container.decodeIfPresent(String.self, forKey: .connectionId),
                    requestId: try container.decodeIfPresent(String.self, forKey: .requestId)
                )
            )
        } else {
            throw CXoneUnrecognizedFrame(what: "has none of eventType, postback, error or message")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self.value {
        case .pong:
            break
        case .postback(let eventId, let event):
            try container.encode(eventId, forKey: .eventId)
            var postback = container.nestedContainer(keyedBy: PostbackKeys.self, forKey: .postback)
            try postback.encode(event.eventType, forKey: .eventType)
            try event.encodeData(into: &postback, forKey: .data)
        case .event(let eventId, let createdAt, let event):
            try container.encode(eventId, forKey: .eventId)
            try container.encode(event.eventType, forKey: .eventType)
            try container.encodeIfPresent(event.eventObject, forKey: .eventObject)
            try container.encodeIfPresent(createdAt, forKey: .createdAt)
            try event.encodeData(into: &container, forKey: .data)
        case .operationError(let error):
            try container.encodeIfPresent(error.eventId, forKey: .eventId)
            var body = container.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            try body.encode(error.errorCode, forKey: .errorCode)
            try body.encodeIfPresent(error.errorMessage, forKey: .errorMessage)
            try body.encodeIfPresent(error.transactionId, forKey: .transactionId)
        case .serverError(let error):
            try container.encode(error.message, forKey: .message)
            try container.encodeIfPresent(error.connectionId, forKey: .connectionId)
            try container.encodeIfPresent(error.requestId, forKey: .requestId)
        }
    }
}
