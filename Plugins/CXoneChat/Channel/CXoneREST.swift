import AttendantPluginAPI
import CXoneCore

/// The CXone chat REST calls, on the network the host lends (``ChannelHost/network``): channel configuration, availability, the visitor and
/// its analytics events, and large events' bodies. Every failure is a ``ChatError`` that names the call,
/// the URL and what came back.
struct CXoneREST: Sendable {
    var network: any ChannelNetwork
    var endpoints: CXoneEndpoints
    var timeout: Duration
    var limits: CXoneWireLimits

    /// `GET {chat}/1.0/brand/{brandId}/channel/{channelId}`.
    func channelConfiguration(brandID: Int, channelID: String) async throws(ChatError) -> ChatStateMachine.ChannelConfiguration {
        let url = self.endpoints.channelConfiguration(brandId: brandID, channelId: channelID)
        let body = try await self.call("GET", url, what: "the channel configuration")
        let configuration: CXoneChannelConfiguration
        do {
            configuration = try CXoneChannelConfiguration.decode(body, limits: self.limits)
        } catch {
            if let refusal = Self.refusal(body, "could not fetch the channel configuration: GET \(url) answered") { throw refusal }
            throw ChatError(.server, "the channel configuration from \(url) is not valid: \(error)")
        }
        return ChatStateMachine.ChannelConfiguration(
            isLiveChat: configuration.isLiveChat,
            isAuthorizationEnabled: configuration.isAuthorizationEnabled,
            multiThread: configuration.settings.hasMultipleThreadsPerEndUser,
            preContactForm: configuration.preContactForm.map(Self.form)
        )
    }

    /// `GET .../availability`: whether live-chat agents are online.
    func availability(brandID: Int, channelID: String) async throws(ChatError) -> Bool {
        let url = self.endpoints.availability(brandId: brandID, channelId: channelID)
        let body = try await self.call("GET", url, what: "the live chat's availability")
        do {
            return try CXoneAvailability.decode(body, limits: self.limits).isOnline
        } catch {
            throw ChatError(.server, "the availability from \(url) is not valid: \(error)")
        }
    }

    /// `PUT .../visitors/{visitorId}`.
    func storeVisitor(brandID: Int, visitorID: String, customer: CXoneWire.CustomerIdentity) async throws(ChatError) {
        let url = self.endpoints.visitor(brandId: brandID, visitorId: CXoneID(visitorID))
        let visitor = CXoneVisitor(customerIdentity: customer)
        _ = try await self.call("PUT", url, body: try Self.encoded(visitor), what: "the visitor")
    }

    /// `POST .../visitors/{visitorId}/events`.
    func sendAnalytics(brandID: Int, visitorID: String, _ event: CXoneWire.AnalyticsEvent) async throws(ChatError) {
        let url = self.endpoints.visitorEvents(brandId: brandID, visitorId: CXoneID(visitorID))
        _ = try await self.call("POST", url, body: try Self.encoded(event), what: "a \(event.type) analytics event")
    }

    /// `GET` a large event's body (EventInS3).
    func download(_ url: String) async throws(ChatError) -> [UInt8] {
        try await self.call("GET", url, what: "a large chat event")
    }

    /// `GET` a message's attachment (its URL as the message brought it, often pre-signed: never shown
    /// with its query), `limit` bytes at most (`max-attachment-size`).
    func downloadAttachment(_ url: String, limit: Int) async throws(ChatError) -> [UInt8] {
        try await self.call(
            "GET",
            url,
            what: "an attachment",
            accept: "*/*",
            limit: limit,
            tooLarge: "the attachment is larger than max-attachment-size"
        )
    }

    // MARK: HTTP

    private func call(
        _ method: String,
        _ url: String,
        body: [UInt8]? = nil,
        what: String,
        accept: String = "application/json",
        limit: Int? = nil,
        tooLarge: String? = nil
    ) async throws(ChatError) -> [UInt8] {
        var headers = [NetworkHeader("Accept", accept)]
        if body != nil { headers.append(NetworkHeader("Content-Type", "application/json")) }
        let verb = method == "GET" ? "fetch" : "send"
        let shown = CXoneEndpoints.redacted(url)
        // One byte over the frame limit, as a frame's own check counts it.
        let limit = limit ?? self.limits.maxFrameSize + 1
        // No cookies: the gateway's REST calls carry their identities in the path, as the mobile SDK's do.
        let request = NetworkRequest(
            method: method,
            url: url,
            headers: headers,
            body: body,
            timeout: self.timeout,
            maximumResponseSize: limit,
            usesCookies: false
        )
        let response: NetworkResponse
        do throws(NetworkError) {
            response = try await self.network.send(request)
        } catch {
            if error.kind == .tooLarge {
                throw ChatError(
                    .server,
                    "could not \(verb) \(what): \(method) \(shown) answered more than \(limit) bytes\(tooLarge.map { " (\($0))" } ?? "")"
                )
            }
            // The host's message names the request the same way: "GET https://…/path failed: …".
            throw ChatError(.server, "could not \(verb) \(what): \(error.message)")
        }
        guard (200..<300).contains(response.status) else {
            let answered = "could not \(verb) \(what): \(method) \(shown) answered \(response.status) \(response.reason)"
            if let refusal = Self.refusal(response.body, answered) { throw refusal }
            throw ChatError(.server, "\(answered)\(Self.excerpt(response.body))")
        }
        return response.body
    }

    /// CXone's `{"error": {"errorCode": "SdkVersionNotSupported"}}`: the server refuses this client's
    /// version, which no retry changes (the error carries the code, so the channel fails for good).
    private static func refusal(_ bytes: [UInt8], _ answered: String) -> ChatError? {
        guard let service = try? CXoneServiceErrorBody.decode(bytes),
            service.error.errorCode.lowercased() == ChatError.sdkVersionNotSupported.lowercased()
        else { return nil }
        let detail = service.error.errorMessage.map { ": \($0)" } ?? ""
        return ChatError(
            .server,
            "\(answered) \(service.error.errorCode)\(detail); the chat server does not accept this client's SDK version (\(CXoneChatConfiguration.sdkVersion)): update Attendant",
            serverCode: service.error.errorCode
        )
    }

    /// The start of an error body, when it is short text (CXone's `{"error": {...}}` or a message).
    private static func excerpt(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        if let service = try? CXoneServiceErrorBody.decode(bytes) {
            return " (\(service.error.errorCode)\(service.error.errorMessage.map { ": \($0)" } ?? ""))"
        }
        let text = String(decoding: bytes.prefix(200), as: UTF8.self).filter { !$0.isNewline }
        return text.isEmpty ? "" : " (\(text))"
    }

    private static func encoded(_ body: some CXoneRESTBody) throws(ChatError) -> [UInt8] {
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
