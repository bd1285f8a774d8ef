/// A header name: compared case-insensitively, compact forms (`i`, `f`, `t`, `m`, `v`, `l`, `c`, `k`, `e`,
/// …; RFC 3261 section 7.3.3) mapped to their full names, well-known names spelled canonically.
package struct SIPHeaderName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as it is written on the wire.
    package let canonical: String
    private let key: String

    package init(_ name: String) {
        let key = SIPSyntax.lowercased(name)
        if let known = Self.known[key] {
            self.canonical = known
            self.key = SIPSyntax.lowercased(known)
        } else {
            self.canonical = name
            self.key = key
        }
    }

    package init(stringLiteral value: String) { self.init(value) }

    package var description: String { self.canonical }

    package static func == (lhs: SIPHeaderName, rhs: SIPHeaderName) -> Bool { lhs.key == rhs.key }
    package func hash(into hasher: inout Hasher) { hasher.combine(self.key) }

    /// Whether the header's value is a comma-separated list whose elements ``SIPHeaders/values(_:)`` splits.
    var isList: Bool { Self.lists.contains(self.key) }

    package static let via = SIPHeaderName("Via")
    package static let from = SIPHeaderName("From")
    package static let to = SIPHeaderName("To")
    package static let callID = SIPHeaderName("Call-ID")
    package static let cseq = SIPHeaderName("CSeq")
    package static let contact = SIPHeaderName("Contact")
    package static let maxForwards = SIPHeaderName("Max-Forwards")
    package static let expires = SIPHeaderName("Expires")
    package static let minExpires = SIPHeaderName("Min-Expires")
    package static let contentLength = SIPHeaderName("Content-Length")
    package static let contentType = SIPHeaderName("Content-Type")
    package static let supported = SIPHeaderName("Supported")
    package static let require = SIPHeaderName("Require")
    package static let unsupported = SIPHeaderName("Unsupported")
    package static let allow = SIPHeaderName("Allow")
    package static let route = SIPHeaderName("Route")
    package static let recordRoute = SIPHeaderName("Record-Route")
    package static let path = SIPHeaderName("Path")
    package static let wwwAuthenticate = SIPHeaderName("WWW-Authenticate")
    package static let authorization = SIPHeaderName("Authorization")
    package static let proxyAuthenticate = SIPHeaderName("Proxy-Authenticate")
    package static let proxyAuthorization = SIPHeaderName("Proxy-Authorization")
    package static let userAgent = SIPHeaderName("User-Agent")
    package static let server = SIPHeaderName("Server")
    package static let flowTimer = SIPHeaderName("Flow-Timer")
    package static let retryAfter = SIPHeaderName("Retry-After")
    package static let reason = SIPHeaderName("Reason")
    package static let pAssertedIdentity = SIPHeaderName("P-Asserted-Identity")
    package static let diversion = SIPHeaderName("Diversion")
    package static let historyInfo = SIPHeaderName("History-Info")

    private static let known: [String: String] = {
        var table: [String: String] = [:]
        let names = [
            "Via", "From", "To", "Call-ID", "CSeq", "Contact", "Max-Forwards", "Expires", "Min-Expires",
            "Content-Length", "Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language",
            "Supported", "Require", "Proxy-Require", "Unsupported", "Allow", "Accept", "Accept-Encoding",
            "Accept-Language", "Route", "Record-Route", "Path", "Service-Route", "WWW-Authenticate",
            "Authorization", "Proxy-Authenticate", "Proxy-Authorization", "Authentication-Info", "User-Agent",
            "Server", "Flow-Timer", "Retry-After", "Subject", "Event", "Allow-Events", "Refer-To", "Referred-By",
            "Session-Expires", "Reject-Contact", "Accept-Contact", "Request-Disposition", "Identity",
            "Identity-Info", "Warning", "Date", "Timestamp", "Organization", "Priority", "Reason", "Reply-To",
            "In-Reply-To", "Alert-Info", "Call-Info", "Error-Info", "MIME-Version", "RSeq", "RAck",
            "P-Asserted-Identity", "P-Preferred-Identity", "Diversion", "History-Info",
        ]
        for name in names { table[SIPSyntax.lowercased(name)] = name }
        let compact: [String: String] = [
            "i": "Call-ID", "f": "From", "t": "To", "m": "Contact", "v": "Via", "l": "Content-Length",
            "c": "Content-Type", "k": "Supported", "e": "Content-Encoding", "s": "Subject", "o": "Event",
            "u": "Allow-Events", "r": "Refer-To", "b": "Referred-By", "x": "Session-Expires", "a": "Accept-Contact",
            "j": "Reject-Contact", "d": "Request-Disposition", "y": "Identity", "n": "Identity-Info",
        ]
        for (short, long) in compact { table[short] = long }
        return table
    }()

    private static let lists: Set<String> = [
        "via", "contact", "route", "record-route", "path", "service-route", "supported", "require", "proxy-require",
        "unsupported", "allow", "accept", "accept-encoding", "accept-language", "allow-events", "content-encoding",
        "content-language", "accept-contact", "reject-contact", "alert-info", "call-info", "error-info", "warning",
        "in-reply-to", "p-asserted-identity", "p-preferred-identity", "reason",
        "diversion", "history-info",
    ]
}

/// One header line.
package struct SIPHeaderField: Sendable, Hashable {
    package var name: SIPHeaderName
    /// The value with surrounding whitespace removed and folded lines joined. Line breaks never survive:
    /// a value cannot smuggle another header into a message.
    package var value: String

    package init(_ name: SIPHeaderName, _ value: String) {
        self.name = name
        // The check reads bytes (every field of every message passes here); the rare replacement reads
        // characters, so a CRLF becomes one space.
        self.value =
            value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            ? String(value.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
            : value
    }
}

/// A message's headers in the order they appear.
package struct SIPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    package private(set) var fields: [SIPHeaderField]

    package init(_ fields: [SIPHeaderField] = []) { self.fields = fields }
    package init(arrayLiteral elements: (SIPHeaderName, String)...) {
        self.fields = elements.map { SIPHeaderField($0.0, $0.1) }
    }

    package var startIndex: Int { self.fields.startIndex }
    package var endIndex: Int { self.fields.endIndex }
    package subscript(position: Int) -> SIPHeaderField { self.fields[position] }

    /// The first value of the header, as written; nil when absent.
    package subscript(name: SIPHeaderName) -> String? {
        self.fields.first { $0.name == name }?.value
    }

    package func contains(_ name: SIPHeaderName) -> Bool { self.fields.contains { $0.name == name } }

    /// Every value of the header, in order: one per header line, and for list headers (Via, Contact,
    /// Route, Supported, …) one per comma-separated element.
    package func values(_ name: SIPHeaderName) -> [String] {
        let lines = self.fields.lazy.filter { $0.name == name }.map(\.value)
        return name.isList ? lines.flatMap(SIPSyntax.splitList) : Array(lines)
    }

    package mutating func add(_ name: SIPHeaderName, _ value: String) {
        self.fields.append(SIPHeaderField(name, value))
    }

    /// Replaces every line of the header with one value, where the first one was (or at the end).
    package mutating func set(_ name: SIPHeaderName, _ value: String) {
        let field = SIPHeaderField(name, value)
        if let index = self.fields.firstIndex(where: { $0.name == name }) {
            self.fields[index] = field
            var seen = false
            self.fields.removeAll { candidate in
                guard candidate.name == name else { return false }
                defer { seen = true }
                return seen
            }
        } else {
            self.fields.append(field)
        }
    }

    package mutating func remove(_ name: SIPHeaderName) {
        self.fields.removeAll { $0.name == name }
    }

    /// Inserts a line before every other line (a proxy's Via, say).
    package mutating func prepend(_ name: SIPHeaderName, _ value: String) {
        self.fields.insert(SIPHeaderField(name, value), at: 0)
    }
}
