/// Where a CXone channel's services are: the WebSocket gateway, the chat REST base and the host root the
/// web-analytics paths hang off. All three are configurable so the plugin can talk to the loopback
/// simulator; ``region(_:)`` gives the public ones.
package struct CXoneEndpoints: Sendable, Hashable {
    /// `wss://chat-gateway-de-{region}.niceincontact.com`
    package var socket: String
    /// `https://channels-de-{region}.niceincontact.com/chat`
    package var chat: String
    /// `https://channels-de-{region}.niceincontact.com`: web-analytics is under the host, not `/chat`.
    package var host: String
    /// `https://digital-oauth-de-{region}.niceincontact.com`: the token server of secured sessions.
    package var token: String

    /// `host` defaults to `chat`'s scheme and authority; `token` to that root with `channels` turned into
    /// `digital-oauth`, as the SDK derives it from a custom chat URL (`CustomEnvironment.evaluateTokenServerUrl`:
    /// `https://channels-de-eu1.niceincontact.com/chat` → `https://digital-oauth-de-eu1.niceincontact.com/`).
    package init(socket: String, chat: String, host: String? = nil, token: String? = nil) {
        self.socket = Self.trimmed(socket)
        self.chat = Self.trimmed(chat)
        self.host = Self.trimmed(host ?? Self.root(of: chat))
        self.token = Self.trimmed(token ?? Self.root(of: chat).replacing("channels", with: "digital-oauth"))
    }

    /// `url` as it may be logged or shown: without its query and fragment, and without user information.
    /// A pre-signed URL (EventInS3's `X-Amz-Signature=…`) is a credential in its query; a WebSocket URL
    /// carries the visitor id in its query.
    package static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<end]
            text += "?…"
        }
        if let scheme = text.firstRange(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                text = text[..<scheme.upperBound] + text[text.index(after: at)...]
            }
        }
        return String(text)
    }

    /// The public endpoints of a region: `na1`, `eu1`, `au1`, `ca1`, `uk1`, `jp1`.
    package static func region(_ region: String) -> CXoneEndpoints {
        CXoneEndpoints(
            socket: "wss://chat-gateway-de-\(region).niceincontact.com",
            chat: "https://channels-de-\(region).niceincontact.com/chat",
            token: "https://digital-oauth-de-\(region).niceincontact.com"
        )
    }

    /// `{chat}/1.0/brand/{brandId}/channel/{channelId}`
    package func channelConfiguration(brandId: Int, channelId: String) -> String {
        "\(self.chat)/1.0/brand/\(brandId)/channel/\(Self.escaped(channelId))"
    }

    /// `{chat}/1.0/brand/{brandId}/channel/{channelId}/attachment` (POST a file for a message).
    package func attachment(brandId: Int, channelId: String) -> String {
        self.channelConfiguration(brandId: brandId, channelId: channelId) + "/attachment"
    }

    /// `{chat}/1.0/brand/{brandId}/channel/{channelId}/availability`
    package func availability(brandId: Int, channelId: String) -> String {
        self.channelConfiguration(brandId: brandId, channelId: channelId) + "/availability"
    }

    /// `{host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}` (PUT the visitor).
    package func visitor(brandId: Int, visitorId: CXoneID) -> String {
        "\(self.host)/web-analytics/1.0/tenants/\(brandId)/visitors/\(Self.escaped(visitorId.rawValue))"
    }

    /// `{host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}/events` (POST analytics events).
    package func visitorEvents(brandId: Int, visitorId: CXoneID) -> String {
        self.visitor(brandId: brandId, visitorId: visitorId) + "/events"
    }

    /// `{socket}?brandId=&channelId=&visitorId=&sdkPlatform=&sdkVersion=`, with secured sessions and
    /// `&transactionToken=` (`ConnectionService.connectToSocket`).
    package func webSocket(
        brandId: Int,
        channelId: String,
        visitorId: CXoneID,
        sdkPlatform: String = "linux",
        sdkVersion: String,
        transactionToken: String? = nil
    ) -> String {
        var items = [
            ("brandId", String(brandId)), ("channelId", channelId), ("visitorId", visitorId.rawValue),
            ("sdkPlatform", sdkPlatform), ("sdkVersion", sdkVersion),
        ]
        if let transactionToken { items.append(("transactionToken", transactionToken)) }
        let query = items.map { "\($0.0)=\(Self.escaped($0.1))" }.joined(separator: "&")
        return "\(self.socket)\(self.socket.contains("?") ? "&" : "?")\(query)"
    }

    /// `{token}/oauth/token?channelId=&brandId=&visitorId=` (POST for a transaction token; the SDK's
    /// `TransactionTokenService.buildTokenURL`).
    package func transactionToken(brandId: Int, channelId: String, visitorId: CXoneID) -> String {
        let query = [("channelId", channelId), ("brandId", String(brandId)), ("visitorId", visitorId.rawValue)]
            .map { "\($0.0)=\(Self.escaped($0.1))" }.joined(separator: "&")
        return "\(self.token)/oauth/token?\(query)"
    }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }

    private static func trimmed(_ base: String) -> String {
        var text = Substring(base)
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    /// `https://h:1/chat` → `https://h:1`.
    private static func root(of url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return url }
        return String(url[..<slash])
    }
}
