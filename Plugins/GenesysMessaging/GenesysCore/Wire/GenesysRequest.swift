#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A request the client sends on the web messaging socket (SDK `shyrka/send/*`): `{"action", "token",
/// "tracingId", …}`. `token` is the session token the client made (a UUID, SDK `TokenGenerator`) and
/// keeps; `tracingId` comes back on the answer (a fresh UUID per request; `echo` always uses
/// ``healthCheckTracingID``).
package struct GenesysRequest: Sendable, Hashable {
    /// SDK `shyrka/send/RequestAction.kt`, with each action's own members.
    package enum Action: Sendable, Hashable {
        case configureSession(deploymentId: String, startNew: Bool, journeyContext: GenesysJourneyContext?)
        /// `data.code` is the JWT from the OAuth code exchange (SDK `ConfigureAuthenticatedSessionRequest.Data`).
        case configureAuthenticatedSession(deploymentId: String, startNew: Bool, journeyContext: GenesysJourneyContext?, jwt: String)
        /// `time` is optional and unused by the SDK's client.
        case onMessage(GenesysOutgoingMessage, time: String? = nil)
        /// The health check: `message` is always `{"text":"ping","type":"Text"}`.
        case echo
        /// Asks for a presigned upload URL (answered by `PresignedUrlResponse`).
        case onAttachment(GenesysAttachmentUpload)
        /// Asks for a fresh download URL of an attachment (answered by `PresignedUrlResponse` without headers).
        case getAttachment(attachmentId: String)
        case deleteAttachment(attachmentId: String)
        /// Asks for a JWT for the REST calls (history), answered by `JwtResponse`.
        case getJwt
        /// With `closeAllConnections`, closes the session's sockets on every device (each gets
        /// `ConnectionClosedEvent`); the SDK uses it to start a new chat from read-only.
        case closeSession(closeAllConnections: Bool)

        /// The `action` string.
        package var name: String {
            switch self {
            case .configureSession: "configureSession"
            case .configureAuthenticatedSession: "configureAuthenticatedSession"
            case .onMessage: "onMessage"
            case .echo: "echo"
            case .onAttachment: "onAttachment"
            case .getAttachment: "getAttachment"
            case .deleteAttachment: "deleteAttachment"
            case .getJwt: "getJwt"
            case .closeSession: "closeSession"
            }
        }
    }

    /// SDK `EchoRequest.kt`'s `HealthCheckID`: the echo's `tracingId`, by which its answer is known.
    package static let healthCheckTracingID = "SGVhbHRoQ2hlY2tNZXNzYWdlSWQ="

    package var token: String
    package var tracingId: String?
    package var action: Action

    package init(token: String, tracingId: String?, action: Action) {
        self.token = token
        self.tracingId = tracingId
        self.action = action
    }

    // MARK: The requests as the SDK's client makes them

    /// The guest session (SDK `MessagingClientImpl.encodeConfigureGuestSessionRequest`), with the journey
    /// context the SDK always sends: the token as a "cookie" customer, an empty "web" session.
    package static func configureSession(token: String, deploymentId: String, startNew: Bool, tracingId: String) -> Self {
        Self(
            token: token,
            tracingId: tracingId,
            action: .configureSession(deploymentId: deploymentId, startNew: startNew, journeyContext: .sdkDefault(token: token))
        )
    }

    /// The authenticated session (SDK `encodeConfigureAuthenticatedSessionRequest`).
    package static func configureAuthenticatedSession(token: String, deploymentId: String, startNew: Bool, jwt: String, tracingId: String) -> Self {
        Self(
            token: token,
            tracingId: tracingId,
            action: .configureAuthenticatedSession(
                deploymentId: deploymentId,
                startNew: startNew,
                journeyContext: .sdkDefault(token: token),
                jwt: jwt
            )
        )
    }

    package static func echo(token: String) -> Self {
        Self(token: token, tracingId: Self.healthCheckTracingID, action: .echo)
    }

    // MARK: Encoding

    /// The request as a JSON object.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["token": .string(self.token), "action": .string(self.action.name)]
        if let tracingId = self.tracingId { members["tracingId"] = .string(tracingId) }
        switch self.action {
        case .configureSession(let deploymentId, let startNew, let journeyContext):
            members["deploymentId"] = .string(deploymentId)
            members["startNew"] = .bool(startNew)
            members["journeyContext"] = journeyContext?.json
        case .configureAuthenticatedSession(let deploymentId, let startNew, let journeyContext, let jwt):
            members["deploymentId"] = .string(deploymentId)
            members["startNew"] = .bool(startNew)
            members["journeyContext"] = journeyContext?.json
            members["data"] = .object(["code": .string(jwt)])
        case .onMessage(let message, let time):
            members["message"] = message.json
            members["time"] = time.map(JSONValue.string)
        case .echo:
            members["message"] = .object(["text": .string("ping"), "type": .string("Text")])
        case .onAttachment(let upload):
            members.merge(upload.members) { _, new in new }
        case .getAttachment(let id), .deleteAttachment(let id):
            members["attachmentId"] = .string(id)
        case .getJwt:
            break
        case .closeSession(let all):
            members["closeAllConnections"] = .bool(all)
        }
        return .object(members)
    }

    /// The frame's text (UTF-8).
    package func encoded() -> [UInt8] { self.json.encoded() }
}

/// `onAttachment`'s members (SDK `OnAttachmentRequest.kt`; the client sends `errorsAsJson: true` and the
/// file's size, not its MD5).
package struct GenesysAttachmentUpload: Sendable, Hashable {
    package var attachmentId: String
    package var fileName: String
    package var fileType: String
    package var fileSize: Int?
    package var fileMd5: String?
    package var errorsAsJson: Bool

    package init(attachmentId: String, fileName: String, fileType: String, fileSize: Int?, fileMd5: String? = nil, errorsAsJson: Bool = true) {
        self.attachmentId = attachmentId
        self.fileName = fileName
        self.fileType = fileType
        self.fileSize = fileSize
        self.fileMd5 = fileMd5
        self.errorsAsJson = errorsAsJson
    }

    var members: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "attachmentId": .string(self.attachmentId), "fileName": .string(self.fileName), "fileType": .string(self.fileType),
            "errorsAsJson": .bool(self.errorsAsJson),
        ]
        if let size = self.fileSize { members["fileSize"] = .number(Double(size)) }
        if let md5 = self.fileMd5 { members["fileMd5"] = .string(md5) }
        return members
    }
}

/// SDK `shyrka/send/JourneyContext.kt`.
package struct GenesysJourneyContext: Sendable, Hashable {
    package var customerId: String
    package var customerIdType: String
    package var customerSessionId: String
    package var customerSessionType: String
    /// `triggeringAction {id, actionMap {id, version}}`, sent by nobody in the SDK's client.
    package var triggeringActionId: String?
    package var actionMapId: String?
    package var actionMapVersion: Double?

    package init(
        customerId: String,
        customerIdType: String,
        customerSessionId: String,
        customerSessionType: String,
        triggeringActionId: String? = nil,
        actionMapId: String? = nil,
        actionMapVersion: Double? = nil
    ) {
        self.customerId = customerId
        self.customerIdType = customerIdType
        self.customerSessionId = customerSessionId
        self.customerSessionType = customerSessionType
        self.triggeringActionId = triggeringActionId
        self.actionMapId = actionMapId
        self.actionMapVersion = actionMapVersion
    }

    /// What the SDK's client sends: `JourneyContext(JourneyCustomer(token, "cookie"), JourneyCustomerSession("", "web"))`.
    package static func sdkDefault(token: String) -> Self {
        Self(customerId: token, customerIdType: "cookie", customerSessionId: "", customerSessionType: "web")
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "customer": .object(["id": .string(self.customerId), "idType": .string(self.customerIdType)]),
            "customerSession": .object(["id": .string(self.customerSessionId), "type": .string(self.customerSessionType)]),
        ]
        if let action = self.triggeringActionId, let map = self.actionMapId, let version = self.actionMapVersion {
            members["triggeringAction"] = .object([
                "id": .string(action), "actionMap": .object(["id": .string(map), "version": .number(version)]),
            ])
        }
        return .object(members)
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        let customer = try fields.object("customer")
        let session = try fields.object("customerSession")
        let action = try fields.optionalObject("triggeringAction")
        let map = try action?.object("actionMap")
        var version: Double?
        if let map {
            let value = try map.required("version")
            guard case .number(let number) = value else { throw .wrong(map.path("version"), value, expected: "a number") }
            version = number
        }
        self.init(
            customerId: try customer.string("id"),
            customerIdType: try customer.string("idType"),
            customerSessionId: try session.string("id"),
            customerSessionType: try session.string("type"),
            triggeringActionId: try action?.string("id"),
            actionMapId: try map?.string("id"),
            actionMapVersion: version
        )
    }
}
