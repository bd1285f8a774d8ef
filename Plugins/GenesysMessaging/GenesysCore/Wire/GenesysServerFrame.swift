#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A frame the web messaging socket sends: `{"type": "response"|"message", "class", "code", "body",
/// "tracingId"?}` (SDK `WebMessagingMessage.kt`, `PreIdentifiedWebMessagingMessage.kt`), its body
/// chosen by `class` (`WebMessagingJson.decodeFromString`, `MessageClassName.kt`).
package struct GenesysServerFrame: Sendable, Hashable {
    package enum Body: Sendable, Hashable {
        /// Class `string`: an error whose code is the frame's `code` and whose text is the body.
        case error(GenesysErrorCode, String)
        case session(GenesysSessionResponse)
        case structuredMessage(GenesysStructuredMessage)
        case presignedURL(GenesysPresignedURL)
        case attachmentDeleted(attachmentId: String)
        case uploadFailure(GenesysAttachmentFailure)
        case uploadSuccess(attachmentId: String, downloadUrl: String, timestamp: String)
        /// `exp` is epoch seconds.
        case jwt(jwt: String, exp: Int)
        case generateURLError(GenesysAttachmentFailure)
        case sessionExpired
        /// `retryAfter` in seconds.
        case tooManyRequests(retryAfter: Int, errorCode: GenesysErrorCode, errorMessage: String)
        /// The session was closed from elsewhere: `reason` "signedIn" when the user signed in on
        /// another device, else the session limit or a `closeSession` (SDK `ConnectionClosedEvent.kt`).
        case connectionClosed(reason: String?)
        case logout
        case sessionCleared

        /// The class name that carries this body.
        package var className: String {
            switch self {
            case .error: "string"
            case .session: "SessionResponse"
            case .structuredMessage: "StructuredMessage"
            case .presignedURL: "PresignedUrlResponse"
            case .attachmentDeleted: "AttachmentDeletedResponse"
            case .uploadFailure: "UploadFailureEvent"
            case .uploadSuccess: "UploadSuccessEvent"
            case .jwt: "JwtResponse"
            case .generateURLError: "GenerateUrlError"
            case .sessionExpired: "SessionExpiredEvent"
            case .tooManyRequests: "TooManyRequestsErrorMessage"
            case .connectionClosed: "ConnectionClosedEvent"
            case .logout: "LogoutEvent"
            case .sessionCleared: "SessionClearedEvent"
            }
        }
    }

    /// "response" (to a request of ours) or "message" (pushed).
    package var type: String
    package var code: Int
    package var tracingId: String?
    package var body: Body

    package init(type: String, code: Int, tracingId: String? = nil, body: Body) {
        self.type = type
        self.code = code
        self.tracingId = tracingId
        self.body = body
    }

    /// The answer to our `echo` (SDK `isHealthCheckResponseId`: the message's id is the frame's tracingId).
    package var isHealthCheckReply: Bool {
        if case .structuredMessage = self.body { self.tracingId == GenesysRequest.healthCheckTracingID } else { false }
    }

    /// Reads one socket frame.
    package init(decoding bytes: some Collection<UInt8>, limits: GenesysWireLimits = .frame) throws(GenesysWireError) {
        try self.init(decoding: limits.parse(bytes, what: "frame"))
    }

    package init(decoding value: JSONValue) throws(GenesysWireError) {
        let fields = try GenesysFields(value, path: "")
        // The SDK reads these three first and drops a frame without any of them.
        let type = try fields.string("type")
        let code = try fields.integer("code")
        let className = try fields.string("class")
        let tracingId = try fields.optionalString("tracingId")
        let body: Body
        switch className {
        case "string":
            let value = try fields.required("body")
            guard case .string(let text) = value else { throw .wrong("body", value, expected: "a string") }
            body = .error(GenesysErrorCode(code), text)
        case "SessionResponse":
            body = .session(try GenesysSessionResponse(fields.object("body")))
        case "StructuredMessage":
            body = .structuredMessage(try GenesysStructuredMessage(fields.object("body")))
        case "PresignedUrlResponse":
            body = .presignedURL(try GenesysPresignedURL(fields.object("body")))
        case "AttachmentDeletedResponse":
            body = .attachmentDeleted(attachmentId: try fields.object("body").string("attachmentId"))
        case "UploadFailureEvent":
            body = .uploadFailure(try GenesysAttachmentFailure(fields.object("body"), withTimestamp: true))
        case "UploadSuccessEvent":
            let success = try fields.object("body")
            body = .uploadSuccess(
                attachmentId: try success.string("attachmentId"),
                downloadUrl: try success.string("downloadUrl"),
                timestamp: try success.string("timestamp")
            )
        case "JwtResponse":
            // SDK `JwtResponse(jwt = "", exp = 0)`: both have defaults there.
            let answer = try fields.object("body")
            body = .jwt(jwt: try answer.optionalString("jwt") ?? "", exp: try answer.optionalInteger("exp") ?? 0)
        case "GenerateUrlError":
            body = .generateURLError(try GenesysAttachmentFailure(fields.object("body"), withTimestamp: false))
        case "SessionExpiredEvent":
            _ = try fields.object("body")
            body = .sessionExpired
        case "TooManyRequestsErrorMessage":
            let answer = try fields.object("body")
            body = .tooManyRequests(
                retryAfter: try answer.integer("retryAfter"),
                errorCode: GenesysErrorCode(try answer.integer("errorCode")),
                errorMessage: try answer.string("errorMessage")
            )
        case "ConnectionClosedEvent":
            body = .connectionClosed(reason: try fields.object("body").optionalString("reason"))
        case "LogoutEvent":
            _ = try fields.object("body")
            body = .logout
        case "SessionClearedEvent":
            _ = try fields.object("body")
            body = .sessionCleared
        default:
            throw GenesysWireError(.unknownClass, "field \"class\" names a class the SDK does not know")
        }
        self.init(type: type, code: code, tracingId: tracingId, body: body)
    }
}

/// Class `PresignedUrlResponse`: where to PUT the file (with `headers`), or, without headers and with a
/// size, a refreshed download URL (SDK `isRefreshUrl`).
package struct GenesysPresignedURL: Sendable, Hashable {
    package var attachmentId: String
    package var headers: [String: String]
    package var url: String
    package var fileName: String?
    package var fileSize: Int?
    package var fileType: String?

    package init(attachmentId: String, headers: [String: String], url: String, fileName: String? = nil, fileSize: Int? = nil, fileType: String? = nil)
    {
        self.attachmentId = attachmentId
        self.headers = headers
        self.url = url
        self.fileName = fileName
        self.fileSize = fileSize
        self.fileType = fileType
    }

    /// A `getAttachment` answer rather than an upload's (SDK `PresignedUrlResponse.isRefreshUrl`).
    package var isRefreshedDownload: Bool { self.headers.isEmpty && self.fileSize != nil }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        _ = try fields.required("headers")
        self.init(
            attachmentId: try fields.string("attachmentId"),
            headers: try fields.stringMap("headers"),
            url: try fields.string("url"),
            fileName: try fields.optionalString("fileName"),
            fileSize: try fields.optionalInteger("fileSize"),
            fileType: try fields.optionalString("fileType")
        )
    }
}

/// `UploadFailureEvent` (with `timestamp`) and `GenerateUrlError` (without).
package struct GenesysAttachmentFailure: Sendable, Hashable {
    package var attachmentId: String
    package var errorCode: GenesysErrorCode
    package var errorMessage: String
    package var timestamp: String?

    package init(attachmentId: String, errorCode: GenesysErrorCode, errorMessage: String, timestamp: String? = nil) {
        self.attachmentId = attachmentId
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.timestamp = timestamp
    }

    init(_ fields: GenesysFields, withTimestamp: Bool) throws(GenesysWireError) {
        self.init(
            attachmentId: try fields.string("attachmentId"),
            errorCode: GenesysErrorCode(try fields.integer("errorCode")),
            errorMessage: try fields.string("errorMessage"),
            timestamp: withTimestamp ? try fields.string("timestamp") : nil
        )
    }
}
