/// A channel's cookies: the subset of RFC 6265 a contact-centre API needs.
///
/// Kept: `name=value`, `Domain` (host-only when absent; a domain the request's host is not in is
/// refused), `Path` (the request's directory when absent), `Max-Age` (before `Expires`), `Expires`,
/// `Secure` (sent over https and wss only). Not kept: the public-suffix list (a `Domain` must contain a
/// dot or be the host itself), `SameSite` and `HttpOnly` (no browser here), and the cookie limits of
/// section 6.1 beyond ``maximumCount``. Pure: the time is a parameter.
///
/// One jar for the daemon's network (attendantd's `HostNetwork`) and the test kit's (`InMemoryNetwork`),
/// so a protocol that depends on its cookies (a load balancer's session, GMS long-polling's
/// `BAYEUX_BROWSER`) behaves in a plugin's tests as in the daemon.
public struct CookieJar: Sendable {
    public struct Cookie: Sendable, Hashable {
        public var name: String
        public var value: String
        /// Lower case, without a leading dot.
        public var domain: String
        /// Only the exact host, not its subdomains (no `Domain` attribute).
        public var hostOnly: Bool
        public var path: String
        /// Seconds since 1970; nil for a session cookie (kept while the jar lives).
        public var expires: Double?
        public var secure: Bool
    }

    /// Where a request goes, as the jar sees it.
    public struct Target: Sendable, Hashable {
        /// Lower case.
        public var host: String
        public var path: String
        /// https or wss.
        public var secure: Bool

        /// nil for a URL that is not absolute http(s) or ws(s).
        public init?(url: String) {
            guard let schemeEnd = url.firstRange(of: "://") else { return nil }
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            guard ["http", "https", "ws", "wss"].contains(scheme) else { return nil }
            var rest = url[schemeEnd.upperBound...]
            if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            var host: Substring
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[authority.index(after: authority.startIndex)..<close]
            } else {
                host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            }
            if host.hasSuffix(".") { host = host.dropLast() }
            guard !host.isEmpty else { return nil }
            self.host = host.lowercased()
            self.path = slash == rest.endIndex ? "/" : String(rest[slash...])
            self.secure = scheme == "https" || scheme == "wss"
        }
    }

    /// More than this and the cookies closest to expiry go first.
    public static let maximumCount = 300

    public private(set) var cookies: [Cookie] = []

    public init() {}

    /// Keeps the cookie of one `Set-Cookie` value (or removes it, when it has expired); ignores one that
    /// does not parse or whose domain the target's host is not in.
    public mutating func store(_ header: String, from target: Target, now: Double) {
        guard let cookie = Self.parse(header, from: target, now: now) else { return }
        self.cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
        if let expires = cookie.expires, expires <= now { return }
        self.cookies.append(cookie)
        if self.cookies.count > Self.maximumCount {
            self.cookies.removeAll { ($0.expires ?? .infinity) <= now }
            self.cookies.sort { ($0.expires ?? .infinity) > ($1.expires ?? .infinity) }
            self.cookies.removeLast(max(0, self.cookies.count - Self.maximumCount))
        }
    }

    /// The `Cookie` header for a request: longer paths first (section 5.4); nil when no cookie applies.
    public func header(for target: Target, now: Double) -> String? {
        let matching = self.cookies.filter { cookie in
            if let expires = cookie.expires, expires <= now { return false }
            if cookie.secure && !target.secure { return false }
            let domainMatches = cookie.hostOnly ? target.host == cookie.domain : Self.domainMatches(target.host, cookie.domain)
            return domainMatches && Self.pathMatches(target.path, cookie.path)
        }
        guard !matching.isEmpty else { return nil }
        return
            matching
            .enumerated()
            .sorted { $0.element.path.count != $1.element.path.count ? $0.element.path.count > $1.element.path.count : $0.offset < $1.offset }
            .map { "\($0.element.name)=\($0.element.value)" }
            .joined(separator: "; ")
    }

    // MARK: Parsing (section 5.2)

    public static func parse(_ header: String, from target: Target, now: Double) -> Cookie? {
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingSpaces
        guard !name.isEmpty else { return nil }
        var cookie = Cookie(
            name: String(name),
            value: String(pair[pair.index(after: equals)...].trimmingSpaces),
            domain: target.host,
            hostOnly: true,
            path: Self.defaultPath(target.path),
            expires: nil,
            secure: false
        )
        var maxAge: Double?
        var expires: Double?
        for part in parts {
            let equals = part.firstIndex(of: "=")
            let key = (equals.map { part[..<$0] } ?? part).trimmingSpaces.lowercased()
            let value = equals.map { String(part[part.index(after: $0)...].trimmingSpaces) } ?? ""
            switch key {
            case "domain":
                var domain = Substring(value.lowercased())
                if domain.hasPrefix(".") { domain = domain.dropFirst() }
                if domain.hasSuffix(".") { domain = domain.dropLast() }
                guard !domain.isEmpty else { continue }
                guard Self.domainMatches(target.host, String(domain)) else { return nil }
                // A bare name ("com") is a public suffix unless it is the host itself ("localhost").
                guard domain.contains(".") || domain == target.host else { return nil }
                cookie.domain = String(domain)
                cookie.hostOnly = false
            case "path":
                if value.hasPrefix("/") { cookie.path = value }
            case "max-age":
                guard let first = value.first, first == "-" || first.isNumber,
                    value.dropFirst().allSatisfy(\.isNumber), let seconds = Double(value)
                else { continue }
                maxAge = seconds
            case "expires":
                if let time = Self.httpDate(value) { expires = time }
            case "secure":
                cookie.secure = true
            default:
                continue
            }
        }
        if let maxAge {
            cookie.expires = maxAge <= 0 ? -Double.infinity : now + maxAge
        } else if let expires {
            cookie.expires = expires
        }
        return cookie
    }

    /// Section 5.1.3: the host is the domain, or ends with "." + domain and is a name, not an IP address.
    public static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        let isIPv4 = host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        return !isIPv4 && !host.contains(":")
    }

    /// Section 5.1.4.
    public static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// Section 5.1.4: the request path up to its last "/", or "/".
    public static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// Section 5.1.1, in its common forms: "Sun, 06 Nov 1994 08:49:37 GMT" and "Sunday, 06-Nov-94 08:49:37 GMT".
    public static func httpDate(_ text: String) -> Double? {
        let tokens = text.split { " ,-\t".contains($0) }
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        for token in tokens {
            if time == nil, token.contains(":") {
                let fields = token.split(separator: ":").compactMap { Int($0) }
                if fields.count == 3 { time = (fields[0], fields[1], fields[2]) }
            } else if month == nil, let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                month = index + 1
            } else if let number = Int(token) {
                if day == nil, token.count <= 2 {
                    day = number
                } else if year == nil {
                    year = number
                }
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if year < 70 { year += 2000 } else if year < 100 { year += 1900 }
        guard (1...31).contains(day), year >= 1601, hour < 24, minute < 60, second < 61 else { return nil }
        return Double(Self.daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
