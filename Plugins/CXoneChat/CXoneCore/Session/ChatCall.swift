package import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

/// One of the chat's REST calls on the gateway, as the mobile SDK makes them: the request for the host's
/// network, and how its answer is read into the session's next step. The channel only sends it
/// (`SessionDriver.send(_:tag:then:)`) and hands back the outcome; everything else is here, so it is
/// tested without a network.
///
/// - `GET {chat}/1.0/brand/{brandId}/channel/{channelId}`: the channel configuration;
/// - `GET …/availability`: whether live-chat agents are online;
/// - `PUT …/visitors/{visitorId}`: the visitor, with the customer's identity;
/// - `POST …/visitors/{visitorId}/events`: an analytics event;
/// - `POST {token}/oauth/token?…`: a transaction token (secured sessions);
/// - `GET` a large event's body (EventInS3) and a message's attachment, at the URL the gateway gave.
///
/// Every failure is a ``ChatError`` that names the call, the URL (without its query, which may be a
/// signature) and what came back.
package struct ChatCall: Sendable {
    package enum Purpose: Sendable {
        case channelConfiguration
        case availability
        case visitor
        /// Best effort: a failure is a warning, never retried, as the SDK sends them.
        case analytics
        /// The body of the large event at `url` (its notice, if the socket's link still has it).
        case largeEvent(url: String, CXoneWire.EventInS3?)
        case attachment
        /// A file for a message (its name and type).
        case upload(name: String, mimeType: String)
        /// Secured sessions: the token the socket opens with.
        case transactionToken
    }

    package let purpose: Purpose
    package private(set) var request: NetworkRequest
    /// "the channel configuration", "an attachment": what a failure says could not be fetched or sent.
    let what: String
    /// Why a body may not be as large as it came: "the attachment is larger than max-attachment-size".
    let tooLarge: String?
    let settings: ChatSession.Settings

    init(
        _ purpose: Purpose,
        _ method: String,
        _ url: String,
        body: [UInt8]? = nil,
        what: String,
        accept: String = "application/json",
        limit: Int? = nil,
        tooLarge: String? = nil,
        settings: ChatSession.Settings
    ) {
        var headers = [NetworkHeader("Accept", accept)]
        if body != nil { headers.append(NetworkHeader("Content-Type", "application/json")) }
        // No cookies: the gateway's REST calls carry their identities in the path, as the mobile SDK's do.
        // One byte over the frame limit, as a frame's own check counts it.
        self.request = NetworkRequest(
            method: method,
            url: url,
            headers: headers,
            body: body,
            timeout: settings.requestTimeout,
            maximumResponseSize: limit ?? settings.limits.maxFrameSize + 1,
            usesCookies: false
        )
        self.purpose = purpose
        self.what = what
        self.tooLarge = tooLarge
        self.settings = settings
    }

    /// Whether the call is an analytics event, which the channel sends one after the other.
    package var isAnalytics: Bool {
        if case .analytics = self.purpose { return true }
        return false
    }

    // MARK: The calls

    /// The call a machine's action makes, or nil for an action that is not a REST call. An analytics event
    /// that cannot be encoded is no call (the error says why).
    package static func making(_ action: ChatStateMachine.Action, settings: ChatSession.Settings) -> Result<ChatCall, ChatError>? {
        let endpoints = settings.endpoints
        switch action {
        case .fetchChannelConfiguration(let brandID, let channelID):
            let url = endpoints.channelConfiguration(brandId: brandID, channelId: channelID)
            return .success(ChatCall(.channelConfiguration, "GET", url, what: "the channel configuration", settings: settings))
        case .fetchAvailability(let brandID, let channelID):
            let url = endpoints.availability(brandId: brandID, channelId: channelID)
            return .success(ChatCall(.availability, "GET", url, what: "the live chat's availability", settings: settings))
        case .createOrUpdateVisitor(let brandID, let visitorID, let customerID):
            let customer = CXoneWire.CustomerIdentity(
                idOnExternalPlatform: CXoneID(customerID),
                firstName: settings.firstName,
                lastName: settings.lastName
            )
            let url = endpoints.visitor(brandId: brandID, visitorId: CXoneID(visitorID))
            return Result { () throws(ChatError) in
                ChatCall(
                    .visitor,
                    "PUT",
                    url,
                    body: try Self.encoded(CXoneVisitor(customerIdentity: customer)),
                    what: "the visitor",
                    settings: settings
                )
            }
        case .fetchTransactionToken(let request):
            let url = endpoints.transactionToken(brandId: request.brandID, channelId: request.channelID, visitorId: CXoneID(request.visitorID))
            let body: CXoneTransactionTokenRequest
            switch request.grant {
            case .anonymous(let customerID): body = .anonymous(customerID: customerID.map { CXoneID($0) })
            case .securedCookie: body = .securedCookie
            case .authorizationCode(let code, let verifier): body = .authorizationCode(CXoneSecret(code), verifier: CXoneSecret(verifier))
            }
            return Result { () throws(ChatError) in
                var call = ChatCall(.transactionToken, "POST", url, body: try Self.encoded(body), what: "a transaction token", settings: settings)
                // The secured cookie is the token server's own: the one call that sends cookies.
                if case .securedCookie = request.grant { call.request.usesCookies = true }
                return call
            }
        case .sendAnalytics(let brandID, let visitorID, let event):
            let wire = ChatWireOutput.analytics(event, visitorID: visitorID)
            let url = endpoints.visitorEvents(brandId: brandID, visitorId: CXoneID(visitorID))
            return Result { () throws(ChatError) in
                ChatCall(.analytics, "POST", url, body: try Self.encoded(wire), what: "a \(wire.type) analytics event", settings: settings)
            }
        default:
            return nil
        }
    }

    /// `GET` a large event's body (EventInS3).
    package static func largeEvent(_ url: String, _ notice: CXoneWire.EventInS3?, settings: ChatSession.Settings) -> ChatCall {
        ChatCall(.largeEvent(url: url, notice), "GET", url, what: "a large chat event", settings: settings)
    }

    /// `GET` a message's attachment (its URL as the message brought it, often pre-signed: never shown with
    /// its query), `limit` bytes at most (`max-attachment-size`).
    package static func attachment(_ url: String, limit: Int, settings: ChatSession.Settings) -> ChatCall {
        ChatCall(
            .attachment,
            "GET",
            url,
            what: "an attachment",
            accept: "*/*",
            limit: limit,
            tooLarge: "the attachment is larger than max-attachment-size",
            settings: settings
        )
    }

    /// `POST …/attachment` of `file`, as the SDK uploads one, once the channel's restrictions said it takes
    /// it (the SDK checks before it uploads, and so does the channel; the server may still refuse).
    package static func upload(_ file: ChatFile, brandID: Int, channelID: String, settings: ChatSession.Settings) -> Result<ChatCall, ChatError> {
        let url = settings.endpoints.attachment(brandId: brandID, channelId: channelID)
        let body = CXoneAttachmentUpload(bytes: file.bytes, fileName: file.name, mimeType: file.mimeType)
        return Result { () throws(ChatError) in
            var call = ChatCall(
                .upload(name: file.name, mimeType: file.mimeType),
                "POST",
                url,
                body: try Self.encoded(body),
                what: "\(file.name) (\(file.bytes.count) bytes)",
                settings: settings
            )
            // An upload takes longer than a question: a minute at least.
            call.request.timeout = max(settings.requestTimeout, .seconds(60))
            return call
        }
    }

    /// The uploaded file as a message carries it: where the gateway keeps it. A refusal (the SDK's
    /// AttachmentUploadFailResponseDTO, with a 2xx status) is an invalid argument that says what the
    /// channel takes.
    package func uploaded(_ outcome: Result<NetworkResponse, NetworkError>) -> Result<ChatStateMachine.SentFile, ChannelError> {
        guard case .upload(let name, let mimeType) = self.purpose else {
            return .failure(ChannelError(.illegalState, "\(ChatSession.prefix): \(self.what) is not an upload"))
        }
        let body: [UInt8]
        switch self.body(outcome) {
        case .success(let bytes): body = bytes
        case .failure(let error): return .failure(error.channelError())
        }
        if let uploaded = try? CXoneAttachmentUploaded.decode(body, limits: self.settings.limits) {
            return .success(ChatStateMachine.SentFile(url: uploaded.fileUrl, name: name, mimeType: mimeType))
        }
        if let refused = try? CXoneAttachmentRefused.decode(body, limits: self.settings.limits) {
            let takes = Self.restrictions(refused.restrictions)
            let types = takes.mimeTypes.isEmpty ? "no file types" : takes.mimeTypes.joined(separator: ", ")
            let why = takes.isEnabled ? "it takes \(types), at most \(takes.maximumMegabytes) MB each" : "it takes no attachments"
            return .failure(ChannelError(.invalidArgument, "\(ChatSession.prefix): \(self.settings.gatewayDescription) refused \(name): \(why)"))
        }
        return .failure(
            ChannelError(
                .server,
                "\(ChatSession.prefix): the answer to uploading \(name) to \(CXoneEndpoints.redacted(self.request.url)) has no fileUrl"
            )
        )
    }

    static func restrictions(_ wire: CXoneChannelConfiguration.FileRestrictions) -> ChatStateMachine.FileRestrictions {
        ChatStateMachine.FileRestrictions(
            isEnabled: wire.isAttachmentsEnabled,
            maximumMegabytes: wire.allowedFileSize,
            mimeTypes: wire.allowedFileTypes.map(\.mimeType)
        )
    }

    // MARK: Reading the answer

    /// What the call's outcome does to the session, read outside the lock: the machine's input, or, for
    /// analytics, the next event (and a warning when it failed).
    package func step(_ outcome: Result<NetworkResponse, NetworkError>, now: UnixTime) -> (inout ChatSession) -> [ChatSession.Action] {
        let body = self.body(outcome)
        let input: ChatStateMachine.Input
        switch self.purpose {
        case .channelConfiguration:
            input = .channelConfiguration(body.flatMap(self.channelConfiguration))
        case .availability:
            input = .availability(body.flatMap(self.availability))
        case .visitor:
            input = .visitor(body.map { _ in () })
        case .transactionToken:
            input = .transactionToken(body.flatMap(self.transactionToken))
        case .analytics:
            // The next event goes, after a failure too (a warning, not retried: ChatSession+Calls).
            var failure: ChatError?
            if case .failure(let error) = body { failure = error }
            return { [failure] session in session.analyticsAnswered(failure) }
        case .attachment, .upload:
            guard case .failure(let error) = body else { return { _ in [] } }
            let warning = "\(ChatSession.prefix): \(error.message)"
            return { _ in [.log(.warning, warning)] }
        case .largeEvent(let url, let notice):
            let (input, ignored, messages) = ChatWireInput.downloadedEvent(url: url, body, large: notice, limits: self.settings.limits, now: now)
            let debug = ignored.map { [ChatSession.Action.log(.debug, "\(ChatSession.prefix): ignored \($0)")] } ?? []
            return { debug + $0.downloaded(url: url, input, messages: messages) }
        }
        return { session in session.run { $0.handle(input) } }
    }

    /// The answer's body, or what went wrong: the network's failure, a body over the limit, a status
    /// other than 2xx (CXone's refusal of the SDK version is its own error).
    package func body(_ outcome: Result<NetworkResponse, NetworkError>) -> Result<[UInt8], ChatError> {
        let method = self.request.method
        let verb = method == "GET" ? "fetch" : "send"
        let shown = CXoneEndpoints.redacted(self.request.url)
        let limit = self.request.maximumResponseSize
        let response: NetworkResponse
        switch outcome {
        case .success(let answer):
            response = answer
        case .failure(let error) where error.kind == .tooLarge:
            let reason = self.tooLarge.map { " (\($0))" } ?? ""
            return .failure(ChatError(.server, "could not \(verb) \(self.what): \(method) \(shown) answered more than \(limit) bytes\(reason)"))
        case .failure(let error):
            // The host's message names the request the same way: "GET https://…/path failed: …".
            return .failure(ChatError(.server, "could not \(verb) \(self.what): \(error.message)"))
        }
        guard (200..<300).contains(response.status) else {
            let answered = "could not \(verb) \(self.what): \(method) \(shown) answered \(response.status) \(response.reason)"
            return .failure(self.refusal(response.body, answered) ?? ChatError(.server, "\(answered)\(Self.excerpt(response.body))"))
        }
        return .success(response.body)
    }

    func channelConfiguration(_ body: [UInt8]) -> Result<ChatStateMachine.ChannelConfiguration, ChatError> {
        let configuration: CXoneChannelConfiguration
        do {
            configuration = try CXoneChannelConfiguration.decode(body, limits: self.settings.limits)
        } catch {
            let url = self.request.url
            return .failure(
                self.refusal(body, "could not fetch the channel configuration: GET \(url) answered")
                    ?? ChatError(.server, "the channel configuration from \(url) is not valid: \(error)")
            )
        }
        var read = ChatStateMachine.ChannelConfiguration(
            isLiveChat: configuration.isLiveChat,
            isAuthorizationEnabled: configuration.isAuthorizationEnabled,
            multiThread: configuration.settings.hasMultipleThreadsPerEndUser,
            preContactForm: configuration.preContactForm.map(Self.form),
            fileRestrictions: configuration.settings.fileRestrictions.map(Self.restrictions)
        )
        read.allowsTranscript = configuration.settings.liveChatAllowTranscript ?? false
        read.securedSessions = configuration.hasSecuredSessions
        read.isSecuredCookieEnabled = configuration.isSecuredCookieEnabled ?? false
        return .success(read)
    }

    /// The token server's answer; its `expiresIn` counts from now (`createdDate`, when given, is the
    /// server's clock, which this one need not share).
    func transactionToken(_ body: [UInt8]) -> Result<ChatStateMachine.TransactionToken, ChatError> {
        do {
            let token = try CXoneTransactionToken.decode(body, limits: self.settings.limits)
            return .success(
                ChatStateMachine.TransactionToken(
                    value: token.accessToken.value,
                    lifetime: .seconds(token.expiresIn),
                    customerID: token.customerIdentity.map { ChatWireInput.id($0.idOnExternalPlatform) },
                    accessToken: token.thirdParty?.token.value
                )
            )
        } catch {
            return .failure(ChatError(.server, "the transaction token from \(CXoneEndpoints.redacted(self.request.url)) is not valid: \(error)"))
        }
    }

    func availability(_ body: [UInt8]) -> Result<Bool, ChatError> {
        do {
            return .success(try CXoneAvailability.decode(body, limits: self.settings.limits).isOnline)
        } catch {
            return .failure(ChatError(.server, "the availability from \(self.request.url) is not valid: \(error)"))
        }
    }

    /// CXone's `{"error": {"errorCode": "SdkVersionNotSupported"}}`: the server refuses this client's
    /// version, which no retry changes (the error carries the code, so the channel fails for good).
    func refusal(_ bytes: [UInt8], _ answered: String) -> ChatError? {
        guard let service = try? CXoneServiceErrorBody.decode(bytes),
            service.error.errorCode.lowercased() == ChatError.sdkVersionNotSupported.lowercased()
        else { return nil }
        let detail = service.error.errorMessage.map { ": \($0)" } ?? ""
        return ChatError(
            .server,
            "\(answered) \(service.error.errorCode)\(detail); the chat server does not accept this client's SDK version (\(self.settings.sdkVersion)): update Attendant",
            serverCode: service.error.errorCode
        )
    }

    /// The start of an error body, when it is short text (CXone's `{"error": {...}}` or a message).
    static func excerpt(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        if let service = try? CXoneServiceErrorBody.decode(bytes) {
            return " (\(service.error.errorCode)\(service.error.errorMessage.map { ": \($0)" } ?? ""))"
        }
        let text = String(decoding: bytes.prefix(200), as: UTF8.self).filter { !$0.isNewline }
        return text.isEmpty ? "" : " (\(text))"
    }

    static func encoded(_ body: some CXoneRESTBody) throws(ChatError) -> [UInt8] {
        do {
            return try body.encoded()
        } catch {
            throw ChatError(.server, "could not encode \(type(of: body).subject): \(error)")
        }
    }

    /// A pre-contact form's fields: `{"isRequired", "definition": {"fieldId"|"ident", "label", "type",
    /// "values": [{"name", "value"}]}}`, or the same keys at the top.
    static func form(_ form: CXoneChannelConfiguration.PreContactForm) -> ChatStateMachine.PreChatForm {
        let fields = form.customFields.compactMap { item -> ChatStateMachine.PreChatForm.Field? in
            let definition = item["definition"] ?? item
            guard let ident = (definition["fieldId"] ?? definition["ident"] ?? item["ident"])?.string else { return nil }
            let label = (definition["label"] ?? item["label"])?.string ?? ident
            var required = false
            if case .bool(let value)? = item["isRequired"] ?? definition["isRequired"] { required = value }
            var options: [String] = []
            if case .array(let values)? = definition["values"] {
                options = values.compactMap { ($0["value"] ?? $0["name"])?.string ?? $0.string }
            }
            return ChatStateMachine.PreChatForm.Field(ident: ident, label: label, isRequired: required, options: options)
        }
        return ChatStateMachine.PreChatForm(name: form.name, fields: fields)
    }
}
