/// Makes the random parts of SIP messages: Via branches, From/To tags, Call-IDs, digest cnonces and
/// RFC 5626 instance IDs, from a generator the caller chooses (the system's by default; a seeded one in
/// tests, so the bytes on the wire are known).
package struct SIPIdentifiers: Sendable {
    private var generator: any RandomNumberGenerator & Sendable

    package init(generator: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.generator = generator
    }

    /// `z9hG4bK` and 20 base-36 characters (about 103 bits), unique per transaction (RFC 3261 8.1.1.7).
    package mutating func branch() -> String {
        SIPVia.branchCookie + self.characters(20)
    }

    /// 12 base-36 characters (about 62 bits; RFC 3261 19.3 asks for at least 32).
    package mutating func tag() -> String {
        self.characters(12)
    }

    /// 24 base-36 characters (about 124 bits), optionally `@host`.
    package mutating func callID(host: String? = nil) -> String {
        let local = self.characters(24)
        return host.map { "\(local)@\($0)" } ?? local
    }

    /// A client nonce for Digest: 32 lowercase hex digits (128 bits).
    package mutating func clientNonce() -> String {
        var text = ""
        for _ in 0..<2 {
            let value = self.generator.next()
            let hex = String(value, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    /// A random (version 4) UUID as an RFC 5626 instance ID: `urn:uuid:xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    package mutating func instanceID() -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let value = self.generator.next()
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
        return "urn:uuid:" + groups.joined(separator: "-")
    }

    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// Up to 12 characters from one uniform draw below 36^12 (< 2^64): one call to the generator (a
    /// `getrandom` for the system's) per 12 characters rather than one per character.
    private mutating func characters(_ count: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let chunk = min(count - bytes.count, Self.digitsPerDraw)
            var value = UInt64.random(in: 0..<Self.powers[chunk], using: &self.generator)
            for _ in 0..<chunk {
                bytes.append(Self.alphabet[Int(value % 36)])
                value /= 36
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let digitsPerDraw = 12
    /// 36^0 … 36^12.
    private static let powers: [UInt64] = (0...digitsPerDraw).map { count in (0..<count).reduce(1) { power, _ in power * 36 } }
}
