/// The service's addresses for a domain ("mypurecloud.com", "usw2.pure.cloud"…), as the SDK's
/// `util/Urls.kt` builds them. A custom endpoint (host:port, the SDK's `TRANSPORT_CUSTOM_ENDPOINT`)
/// sends everything to one plain-text server instead: `ws://` and `http://`.
package struct GenesysEndpoints: Sendable, Hashable {
    package var domain: String
    package var deploymentId: String
    /// The `application` query parameter; the SDK sends "TransportSDK-<version>".
    package var application: String
    package var customEndpoint: String?

    package init(domain: String, deploymentId: String, application: String, customEndpoint: String? = nil) {
        self.domain = domain
        self.deploymentId = deploymentId
        self.application = application
        // As the SDK's sanitizeEndpoint: no scheme, no trailing slash, blank is none.
        var endpoint = customEndpoint ?? ""
        if let scheme = endpoint.firstRange(of: "://"), !scheme.isEmpty,
            endpoint[..<scheme.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), scheme.lowerBound > endpoint.startIndex
        {
            endpoint = String(endpoint[scheme.upperBound...])
        }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.customEndpoint = endpoint.isEmpty ? nil : endpoint
    }

    private var apiBase: String { self.customEndpoint.map { "http://\($0)" } ?? "https://api.\(self.domain)" }

    /// `wss://webmessaging.{domain}/v1?deploymentId=…&application=…`.
    package var webSocket: String {
        let base = self.customEndpoint.map { "ws://\($0)" } ?? "wss://webmessaging.\(self.domain)"
        return "\(base)/v1?deploymentId=\(Self.query(self.deploymentId))&application=\(Self.query(self.application))"
    }

    /// `https://api-cdn.{domain}/webdeployments/v1/deployments/{id}/config.json`.
    package var deploymentConfig: String {
        let base = self.customEndpoint.map { "http://\($0)" } ?? "https://api-cdn.\(self.domain)"
        return "\(base)/webdeployments/v1/deployments/\(Self.query(self.deploymentId))/config.json"
    }

    /// `GET …/api/v2/webmessaging/messages?pageNumber=&pageSize=` with `Authorization: bearer <jwt>` and
    /// `Origin: <domain>` (SDK `WebMessagingApi.getMessages`).
    package func history(pageNumber: Int, pageSize: Int = GenesysHistoryPage.defaultPageSize) -> String {
        "\(self.apiBase)/api/v2/webmessaging/messages?pageNumber=\(pageNumber)&pageSize=\(pageSize)"
    }

    /// POST `{deploymentId, oauth: {code, redirectUri, codeVerifier}}` → `{jwt, refreshToken}`.
    package var jwtExchange: String { "\(self.apiBase)/api/v2/webdeployments/token/oauthcodegrantjwtexchange" }
    /// POST `{refreshToken}` → `{jwt, refreshToken}`.
    package var jwtRefresh: String { "\(self.apiBase)/api/v2/webdeployments/token/refresh" }
    /// DELETE with `Authorization: bearer <jwt>`.
    package var jwtRevoke: String { "\(self.apiBase)/api/v2/webdeployments/token/revoke" }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func query(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
