import Foundation

// SIP as the voice fixture sees it in the peers' traces: messages as text (baresip's `-s` trace, sipp's
// `-trace_msg` file) and kamailio's `kamcmd ul.dump`, parsed just enough for tests. Independent of the
// plugin's own parser on purpose.

/// The transport a voice peer (baresip, SIPp, kamailio) is run with.
package enum PeerTransport: String, Sendable, CaseIterable {
    case udp, tcp, tls
}

/// One SIP message, as sent or received by a peer.
package struct SIPMessage: Sendable, CustomStringConvertible {
    package let text: String
    package let startLine: String
    /// In order, names as written.
    package let headers: [Header]
    package let body: String

    package struct Header: Sendable, Equatable {
        package let name: String
        package let value: String
    }

    /// Compact header forms (RFC 3261 section 7.3.3 and later RFCs).
    package static let compact: [String: String] = [
        "i": "call-id", "m": "contact", "f": "from", "t": "to", "v": "via", "l": "content-length", "c": "content-type",
        "k": "supported", "s": "subject", "e": "content-encoding", "o": "event", "u": "allow-events", "r": "refer-to",
    ]

    package init?(_ text: String) {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        let (head, body): (Substring, Substring) =
            if let blank = normalized.range(of: "\n\n") {
                (normalized[..<blank.lowerBound], normalized[blank.upperBound...])
            } else {
                (Substring(normalized), "")
            }
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, first.contains("SIP/2.0") else { return nil }
        lines.removeFirst()
        var headers: [Header] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", let last = headers.popLast() {
                headers.append(Header(name: last.name, value: last.value + " " + line.trimmingCharacters(in: .whitespaces)))
            } else if let colon = line.firstIndex(of: ":") {
                headers.append(
                    Header(
                        name: line[..<colon].trimmingCharacters(in: .whitespaces),
                        value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                )
            }
        }
        self.text = text
        self.startLine = first
        self.headers = headers
        self.body = String(body)
    }

    package var isRequest: Bool { !self.startLine.hasPrefix("SIP/2.0") }
    package var method: String? { self.isRequest ? self.startLine.split(separator: " ").first.map(String.init) : nil }
    package var requestURI: String? {
        let parts = self.startLine.split(separator: " ")
        return self.isRequest && parts.count >= 2 ? String(parts[1]) : nil
    }
    package var status: Int? { self.isRequest ? nil : self.startLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
    package var reason: String? {
        guard !self.isRequest else { return nil }
        return self.startLine.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init)
    }
    /// The method in CSeq (what a response answers).
    package var cseqMethod: String? { self.header("CSeq")?.split(separator: " ").last.map(String.init) }
    package var callID: String? { self.header("Call-ID") }

    /// Every value of the header `name` (case-insensitive, compact forms too), comma-lists not split.
    package func headers(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return self.headers.filter {
            let have = $0.name.lowercased()
            return have == wanted || Self.compact[have] == wanted
        }.map(\.value)
    }

    package func header(_ name: String) -> String? { self.headers(name).first }

    /// The sent-by of the top Via ("host:port").
    package var topViaSentBy: String? {
        guard let via = self.header("Via") else { return nil }
        // "SIP/2.0/UDP 127.0.0.1:5060;branch=..." (possibly several, comma-separated)
        let first = via.split(separator: ",").first.map(String.init) ?? via
        return first.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first?
            .split(separator: ";").first.map(String.init)
    }

    package var description: String { self.text }
}

/// A SIP message in a peer's trace, with where it went.
package struct TracedSIPMessage: Sendable {
    package enum Direction: String, Sendable {
        case sent, received
    }

    package let direction: Direction
    package let transport: String
    /// "host:port" as the tool printed it (empty if it did not).
    package let source: String
    package let destination: String
    package let message: SIPMessage
}

/// One contact in kamailio's location table (`kamcmd ul.dump`).
package struct RegisteredContact: Sendable, CustomStringConvertible {
    /// The address-of-record: the user (the registrar runs with use_domain off).
    package let aor: String
    /// The Contact URI as registered.
    package let address: String
    /// Seconds left (nil when kamailio prints something else, like "permanent" or "expired").
    package let expires: Int?
    /// The client's source address when it registered (`sip:host:port;transport=...`).
    package let received: String?
    /// The `+sip.instance` value, angle brackets included; nil if none.
    package let instance: String?
    /// The RFC 5626 `reg-id` (0: none).
    package let regID: Int
    package let callID: String
    package let cseq: Int?
    package let userAgent: String?
    /// The local socket it came in on, e.g. "udp:127.0.0.1:5060".
    package let socket: String
    /// Every field as printed.
    package let fields: [String: String]

    package var description: String { "\(self.aor) → \(self.address) (expires \(self.expires.map(String.init) ?? "?"), via \(self.socket))" }

    /// Parses `kamcmd ul.dump`: nested `Name: {` blocks with `Key: value` lines; a contact is a
    /// `Contact: {` block inside an `Info: {` block whose `AoR:` line names the user.
    package static func parse(ulDump: String) -> [RegisteredContact] {
        var contacts: [RegisteredContact] = []
        var aor = ""
        var fields: [String: String]?
        for raw in ulDump.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line == "Contact: {" {
                fields = [:]
            } else if line == "}" {
                if let current = fields {
                    contacts.append(RegisteredContact(aor: aor, fields: current))
                    fields = nil
                }
            } else if let colon = line.range(of: ": ") {
                let key = String(line[..<colon.lowerBound])
                let value = String(line[colon.upperBound...])
                if fields != nil {
                    fields?[key] = value
                } else if key == "AoR" {
                    aor = value
                }
            }
        }
        return contacts
    }

    private init(aor: String, fields: [String: String]) {
        func optional(_ key: String) -> String? {
            guard let value = fields[key], value != "[not set]", value != "n/a", !value.isEmpty else { return nil }
            return value
        }
        self.aor = aor
        self.address = fields["Address"] ?? ""
        self.expires = fields["Expires"].flatMap { Int($0) }
        self.received = optional("Received")
        self.instance = optional("Instance")
        self.regID = Int(fields["Reg-Id"] ?? "") ?? 0
        self.callID = fields["Call-ID"] ?? ""
        self.cseq = Int(fields["CSeq"] ?? "")
        self.userAgent = optional("User-Agent")
        self.socket = fields["Socket"] ?? ""
        self.fields = fields
    }
}
