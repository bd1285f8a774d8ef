/// The CSeq (RFC 3261 section 20.16): a sequence number and the method it counts.
struct SimSIPCSeq: Sendable, Hashable, CustomStringConvertible {
    var number: UInt32
    var method: String

    init(_ number: UInt32, _ method: String) {
        self.number = number
        self.method = method
    }

    init(parsing text: String) throws(SimSIPParseError) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, let number = UInt32(parts[0]) else { throw SimSIPParseError("bad CSeq '\(text.prefix(40))'") }
        self.number = number
        self.method = String(parts[1])
    }

    var description: String { "\(self.number) \(self.method)" }
}
