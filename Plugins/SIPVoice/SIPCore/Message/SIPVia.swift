/// One Via header element: `SIP/2.0/UDP host:port;branch=z9hG4bK…;received=…;rport=…`.
package struct SIPVia: Sendable, Hashable, CustomStringConvertible {
    /// The magic cookie that starts every RFC 3261 branch (section 8.1.1.7).
    package static let branchCookie = "z9hG4bK"

    /// Upper-cased: `UDP`, `TCP`, `TLS`, `WS`, `WSS`, `SCTP`.
    package var transport: String
    /// The sent-by host: a name, IPv4 address or bracketed IPv6 reference.
    package var host: String
    package var port: Int?
    package var parameters: SIPParameters

    package init(transport: String, host: String, port: Int? = nil, parameters: SIPParameters = []) {
        self.transport = transport.uppercased()
        self.host = host
        self.port = port
        self.parameters = parameters
    }

    package var branch: String? { self.parameters["branch"] }
    package var received: String? { self.parameters["received"] }
    /// Whether the `rport` parameter is present (RFC 3581), with or without a value.
    package var hasRPort: Bool { self.parameters.contains("rport") }
    /// The port the server saw the request come from (RFC 3581), when it filled it in.
    package var rport: Int? { self.parameters["rport"].flatMap(SIPSyntax.parseUInt32).flatMap { $0 <= 65535 ? Int($0) : nil } }
    /// Whether the branch carries RFC 3261's magic cookie, so it alone identifies the transaction.
    package var hasRFC3261Branch: Bool { self.branch?.hasPrefix(Self.branchCookie) ?? false }

    /// `host:port` as sent.
    package var sentBy: String { self.port.map { "\(self.host):\($0)" } ?? self.host }

    package var description: String {
        "SIP/2.0/\(self.transport) \(self.sentBy)\(self.parameters.serializedWithSemicolons)"
    }
}

extension SIPVia {
    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let name = scanner.readToken(), SIPSyntax.equalsIgnoringCase(name, "SIP"), scanner.consume(UInt8(ascii: "/")) else {
            throw SIPParseError(.headerValue, "expected 'SIP/2.0/<transport>' at the start of Via")
        }
        scanner.skipWhitespace()
        guard scanner.readToken() == "2.0", scanner.consume(UInt8(ascii: "/")) else {
            throw SIPParseError(.headerValue, "expected 'SIP/2.0/<transport>' at the start of Via")
        }
        scanner.skipWhitespace()
        guard let transport = scanner.readToken() else {
            throw SIPParseError(.headerValue, "expected a transport in Via")
        }
        scanner.skipWhitespace()
        let sentBy = scanner.readWhile { !SIPSyntax.isWhitespace($0) && $0 != UInt8(ascii: ";") }
        let uri: SIPURI
        do {
            uri = try SIPURI(parsing: "sip:" + sentBy)
        } catch {
            throw SIPParseError(.headerValue, "invalid sent-by '\(sentBy.prefix(48))' in Via")
        }
        guard uri.user == nil, uri.parameters.isEmpty, uri.headers.isEmpty else {
            throw SIPParseError(.headerValue, "invalid sent-by '\(sentBy.prefix(48))' in Via")
        }
        self.transport = transport.uppercased()
        self.host = uri.host
        self.port = uri.port
        self.parameters = try SIPParameters.parseHeaderParameters(&scanner)
    }
}

/// The CSeq header: a sequence number and the request's method.
package struct SIPCSeq: Sendable, Hashable, CustomStringConvertible {
    /// Less than 2**31 (RFC 3261 section 8.1.1.5).
    package var number: UInt32
    package var method: SIPMethod

    package init(_ number: UInt32, _ method: SIPMethod) {
        self.number = number
        self.method = method
    }

    package var description: String { "\(self.number) \(self.method)" }

    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, let number = SIPSyntax.parseUInt32(parts[0]), number < 1 << 31, SIPSyntax.isToken(parts[1]) else {
            throw SIPParseError(.headerValue, "expected '<number below 2^31> <method>' in CSeq")
        }
        self.number = number
        self.method = SIPMethod(String(parts[1]))
    }
}

/// A request method. Methods are case-sensitive (RFC 3261 section 7.1).
package struct SIPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let rawValue: String

    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }
    package var description: String { self.rawValue }

    package static let invite = SIPMethod("INVITE")
    package static let ack = SIPMethod("ACK")
    package static let bye = SIPMethod("BYE")
    package static let cancel = SIPMethod("CANCEL")
    package static let register = SIPMethod("REGISTER")
    package static let options = SIPMethod("OPTIONS")
    package static let info = SIPMethod("INFO")
    package static let update = SIPMethod("UPDATE")
    package static let prack = SIPMethod("PRACK")
    package static let subscribe = SIPMethod("SUBSCRIBE")
    package static let notify = SIPMethod("NOTIFY")
    package static let refer = SIPMethod("REFER")
    package static let message = SIPMethod("MESSAGE")
}
