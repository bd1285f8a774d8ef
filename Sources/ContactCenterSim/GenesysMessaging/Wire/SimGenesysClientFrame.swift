/// A frame a web messaging client sends on `/v1`, read with the simulator's own JSON (``GMSJSON``), not
/// the plugin's codec: an independent reading of the protocol (issue 35).
///
/// Every request is `{"action": …, "token": …, "tracingId"?: …}` plus the action's fields, as the
/// Messenger transport SDK's `shyrka/send/*` classes serialise them (MyPureCloud/
/// genesys-messenger-transport-mobile-sdk; `RequestAction.kt` names the actions).
struct SimGenesysClientFrame: Sendable, Hashable {
    var action: String
    /// The session token the client made (`WebMessagingRequest.token`).
    var token: String
    /// The client's id for the request; answers carry it back (`WebMessagingMessage.tracingId`).
    var tracingId: String?
    var request: SimGenesysRequest

    /// Reads one text frame. The error carries the code and text the service answers with.
    static func parse(_ bytes: [UInt8]) throws(SimGenesysWireError) -> SimGenesysClientFrame {
        guard let json = GMSJSON.parse(bytes), json.object != nil else {
            throw SimGenesysWireError(400, "Request failed: the frame is not a JSON object")
        }
        guard let action = json["action"]?.string else { throw SimGenesysWireError(400, "Request failed: the frame has no action") }
        guard let token = json["token"]?.string, !token.isEmpty else { throw SimGenesysWireError(4020, "Request failed: \(action) has no token") }
        let request: SimGenesysRequest
        switch action {
        case "configureSession", "configureAuthenticatedSession":
            // ConfigureSessionRequest.kt / ConfigureAuthenticatedSessionRequest.kt: deploymentId, startNew,
            // journeyContext; the authenticated one adds data.code, which carries the JWT
            // (MessagingClientImpl.encodeConfigureAuthenticatedSessionRequest passes authHandler.jwt).
            guard let deploymentId = json["deploymentId"]?.string else {
                throw SimGenesysWireError(4020, "Request failed: \(action) has no deploymentId")
            }
            let startNew = json["startNew"].flatMap(Self.bool) ?? false
            if action == "configureSession" {
                request = .configureSession(deploymentId: deploymentId, startNew: startNew)
            } else {
                guard let jwt = json["data"]?["code"]?.string else { throw SimGenesysWireError(4020, "Request failed: \(action) has no data.code") }
                request = .configureAuthenticatedSession(deploymentId: deploymentId, startNew: startNew, jwt: jwt)
            }
        case "onMessage":
            guard let message = json["message"], message.object != nil else {
                throw SimGenesysWireError(4020, "Request failed: onMessage has no message")
            }
            request = .onMessage(try SimGenesysInboundMessage.parse(message, time: json["time"]?.string))
        case "echo":
            request = .echo(text: json["message"]?["text"]?.string ?? "")
        case "onAttachment":
            // OnAttachmentRequest.kt: attachmentId (the client's), fileName, fileType, fileSize, fileMd5, errorsAsJson.
            guard let id = json["attachmentId"]?.string, let name = json["fileName"]?.string else {
                throw SimGenesysWireError(4020, "Request failed: onAttachment needs attachmentId and fileName")
            }
            request = .onAttachment(
                attachmentId: id,
                fileName: name,
                fileType: json["fileType"]?.string ?? "application/octet-stream",
                fileSize: json["fileSize"]?.intOrNumericString,
                errorsAsJson: json["errorsAsJson"].flatMap(Self.bool) ?? false
            )
        case "getAttachment", "deleteAttachment":
            guard let id = json["attachmentId"]?.string else { throw SimGenesysWireError(4020, "Request failed: \(action) has no attachmentId") }
            request = action == "getAttachment" ? .getAttachment(attachmentId: id) : .deleteAttachment(attachmentId: id)
        case "getJwt":
            request = .getJwt
        case "closeSession":
            request = .closeSession(closeAllConnections: json["closeAllConnections"].flatMap(Self.bool) ?? false)
        default:
            throw SimGenesysWireError(400, "Request failed: unknown action \(action)")
        }
        return SimGenesysClientFrame(action: action, token: token, tracingId: json["tracingId"]?.string, request: request)
    }

    private static func bool(_ value: GMSJSON) -> Bool? {
        guard case .bool(let flag) = value else { return nil }
        return flag
    }
}

/// What a client frame asks for.
enum SimGenesysRequest: Sendable, Hashable {
    case configureSession(deploymentId: String, startNew: Bool)
    case configureAuthenticatedSession(deploymentId: String, startNew: Bool, jwt: String)
    case onMessage(SimGenesysInboundMessage)
    /// `EchoRequest.kt`: `{"action": "echo", "message": {"text": "ping", "type": "Text"}}`, tracingId
    /// `SGVhbHRoQ2hlY2tNZXNzYWdlSWQ=` (the SDK's HealthCheckID).
    case echo(text: String)
    case onAttachment(attachmentId: String, fileName: String, fileType: String, fileSize: Int?, errorsAsJson: Bool)
    case getAttachment(attachmentId: String)
    case deleteAttachment(attachmentId: String)
    case getJwt
    case closeSession(closeAllConnections: Bool)
}

/// The `message` of an onMessage request: `TextMessage.kt`, `StructuredMessage.kt` or `EventMessage.kt`
/// (`BaseMessageProtocol.Type`: Text, Structured, Event).
struct SimGenesysInboundMessage: Sendable, Hashable {
    var type: String
    var text: String
    /// `content`: `{"contentType": "Attachment", "attachment": {"id": …}}` or `{"contentType":
    /// "ButtonResponse", "buttonResponse": {"text", "payload", "type"}}` (core/Message.kt's Content).
    var content: [GMSJSON]
    /// `events` of an Event message: Typing `{"type": "On"}`, Presence `{"type": "Join"|"Clear"}`.
    var events: [GMSJSON]
    var metadata: [String: GMSJSON]
    /// `channel.metadata.customAttributes`, as sent.
    var customAttributes: [String: GMSJSON]
    /// The request's `time`, when the client dated the message.
    var time: String?

    static func parse(_ json: GMSJSON, time: String?) throws(SimGenesysWireError) -> SimGenesysInboundMessage {
        guard let type = json["type"]?.string, ["Text", "Structured", "Event"].contains(type) else {
            throw SimGenesysWireError(400, "Request failed: the message type must be Text, Structured or Event")
        }
        let events = json["events"]?.array ?? []
        if type == "Event", events.isEmpty { throw SimGenesysWireError(4020, "Request failed: an Event message has no events") }
        return SimGenesysInboundMessage(
            type: type,
            text: json["text"]?.string ?? "",
            content: json["content"]?.array ?? [],
            events: events,
            metadata: json["metadata"]?.object ?? [:],
            customAttributes: json["channel"]?["metadata"]?["customAttributes"]?.object ?? [:],
            time: time
        )
    }

    /// The `buttonResponse` objects of the content (a quick reply or a card's postback chosen).
    var buttonResponses: [GMSJSON] {
        self.content.compactMap { $0["contentType"]?.string == "ButtonResponse" ? $0["buttonResponse"] : nil }
    }

    /// The ids of the attachments the content names.
    var attachmentIds: [String] {
        self.content.compactMap { $0["contentType"]?.string == "Attachment" ? $0["attachment"]?["id"]?.string : nil }
    }
}

/// Why a request was refused: the code and text of the service's `{"class": "string"}` answer. The codes
/// are the SDK's (`core/ErrorCode.kt`: 4006 session expired, 4007 session not found, 4011 message too
/// long, 4013 custom attributes too large, 4020 missing parameter, 5000 unexpected) or HTTP statuses.
struct SimGenesysWireError: Error, Sendable, Hashable, CustomStringConvertible {
    var code: Int
    var description: String

    init(_ code: Int, _ description: String) {
        self.code = code
        self.description = description
    }
}
