internal import FoundationEssentials

/// A CXone identifier (thread, message, contact, customer, event): the text as received, compared and
/// hashed without regard to ASCII letter case, because the services send the same UUID in mixed case.
package struct CXoneID: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier exactly as it was received or created; this is what is encoded.
    package let rawValue: String

    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    /// A fresh lower-case UUID, the form the mobile SDK sends.
    package static func random() -> CXoneID { CXoneID(UUID().uuidString.lowercased()) }

    package var description: String { self.rawValue }

    package static func == (lhs: CXoneID, rhs: CXoneID) -> Bool {
        Self.equal(lhs.rawValue, rhs.rawValue)
    }

    package func hash(into hasher: inout Hasher) {
        for byte in self.rawValue.utf8 { hasher.combine(Self.folded(byte)) }
        hasher.combine(0xFF as UInt8)
    }

    /// Whether two identifiers are the same, ignoring ASCII letter case.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { Self.folded($0) == Self.folded($1) }
    }

    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    package init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
}

/// A credential on the wire (access token, authorization code, code verifier): encoded as its plain text,
/// but printed as `<redacted>` so it never reaches a log through `description` or string interpolation.
package struct CXoneSecret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The credential itself: hand it only to the wire and the secrets file.
    package let value: String

    package init(_ value: String) { self.value = value }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }

    package init(from decoder: any Decoder) throws {
        self.value = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.value)
    }
}
