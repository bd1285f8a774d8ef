/// The random parts of the chat: UUIDs for visitors, customers, visits, threads and messages, and the
/// reconnect backoff's jitter, from a generator the caller chooses (the system's by default; a seeded one
/// in tests, so every id and delay is known).
package struct ChatRandom: Sendable {
    private var generator: any RandomNumberGenerator & Sendable

    package init(generator: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.generator = generator
    }

    /// A random (version 4) UUID in lower case, as the SDK's `LowercaseUUID`.
    package mutating func uuid() -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let value = self.generator.next()
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
        return groups.joined(separator: "-")
    }

    /// A number in `0..<1`.
    package mutating func unit() -> Double {
        Double.random(in: 0..<1, using: &self.generator)
    }
}
