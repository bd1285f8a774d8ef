/// Random ids in the form iOS's `UUID().uuidString` gives (upper-case, version 4), for `pv_id`,
/// `original_pv_id` and a new `visitor_id`, drawn from the generator the machine was given.
package enum KarteID {
    package static func random(using generator: inout some RandomNumberGenerator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text += [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
