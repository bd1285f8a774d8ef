import AttendantPluginAPI
import GenesysCore

/// The settings of one genesys-messaging channel (`[channel.genesys-messaging]`); see
/// ``GenesysMessagingPluginFactory``.
struct GenesysMessagingConfiguration: Sendable {
    var deploymentId: String
    /// The region's domain (`mypurecloud.com`, `usw2.pure.cloud`…), or the custom endpoint's host:port.
    var endpoints: GenesysEndpoints
    /// Sends autostart after a new session: the deployment's `autoStart` unless set.
    var autoStart: Bool?
    /// A send's wait for the service's copy, and listen()'s for a configured session.
    var requestTimeout: Duration = .seconds(10)
    /// An authenticated session's OAuth redirect URI and PKCE verifier, sent with the code's exchange.
    var redirectUri: String?
    var codeVerifier: String?
    /// The largest attachment fetched (`max-attachment-size`, bytes), as the other chat channels: 25 MiB.
    var maximumAttachmentSize = 25 << 20

    /// The SDK's `application` query parameter is `TransportSDK-<version>` (`core/Configuration.kt`); ours names us.
    static let application = "Attendant-1.0.0"

    init(_ settings: ChannelSettings) throws {
        guard let deploymentId = try settings.string("deployment-id"), !deploymentId.isEmpty else {
            throw settings.error("deployment-id", "is missing; give the Messenger deployment's id (Admin > Message > Messenger Deployments)")
        }
        guard deploymentId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw settings.error("deployment-id", "\"\(deploymentId)\" is not a deployment id (letters, digits and '-')")
        }
        self.deploymentId = deploymentId
        let domain = try settings.string("domain")
        let endpoint = try settings.string("endpoint")
        switch (domain, endpoint) {
        case (nil, nil):
            throw settings.error("domain", "is missing; give the region's domain, such as \"mypurecloud.com\" (or endpoint = \"host:port\")")
        case (.some, .some):
            throw settings.error("endpoint", "and domain are both set; endpoint (host:port) replaces every address of the domain")
        case (let domain?, nil):
            guard !domain.isEmpty, !domain.contains("/"), !domain.contains(":"), domain.contains(".") else {
                throw settings.error("domain", "\"\(domain)\" is not a domain such as \"mypurecloud.com\" (no scheme, no path)")
            }
            self.endpoints = GenesysEndpoints(domain: domain, deploymentId: deploymentId, application: Self.application)
        case (nil, let endpoint?):
            // The SDK's custom endpoint (TRANSPORT_CUSTOM_ENDPOINT): host:port, plain ws:// and http://.
            let endpoints = GenesysEndpoints(domain: "", deploymentId: deploymentId, application: Self.application, customEndpoint: endpoint)
            guard let custom = endpoints.customEndpoint, custom.contains(":"), !custom.contains("/") else {
                throw settings.error("endpoint", "\"\(endpoint)\" is not host:port")
            }
            self.endpoints = endpoints
        }
        self.autoStart = try settings.bool("auto-start")
        self.redirectUri = try settings.string("redirect-uri")
        if let redirectUri { try settings.checkURL(redirectUri, key: "redirect-uri", schemes: ["http", "https"]) }
        self.codeVerifier = try settings.string("code-verifier")
        if let size = try settings.integer("max-attachment-size") {
            guard (1...(64 << 20)).contains(size) else {
                throw settings.error("max-attachment-size", "must be a number of bytes from 1 to 67108864 (64 MiB), not \(size)")
            }
            self.maximumAttachmentSize = size
        }
        if let timeout = try settings.duration("request-timeout") {
            guard timeout >= .milliseconds(500) else { throw settings.error("request-timeout", "must be at least 0.5 s") }
            self.requestTimeout = timeout
        }
    }

    /// What messages call the service.
    var serverDescription: String {
        if let custom = self.endpoints.customEndpoint { return "Genesys web messaging at \(custom)" }
        return "Genesys web messaging at \(self.endpoints.domain)"
    }

    /// A JSON POST to the token API.
    func post(_ url: String, _ body: [UInt8]) -> NetworkRequest {
        NetworkRequest(
            method: "POST",
            url: url,
            headers: [NetworkHeader("Content-Type", "application/json")],
            body: body,
            timeout: self.requestTimeout,
            maximumResponseSize: 1 << 20,
            usesCookies: false
        )
    }

    var sessionSettings: GenesysChatSession.Settings {
        GenesysChatSession.Settings(
            endpoints: self.endpoints,
            serverDescription: self.serverDescription,
            requestTimeout: self.requestTimeout,
            autoStart: self.autoStart
        )
    }
}
