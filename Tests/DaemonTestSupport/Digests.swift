// SHA-1 and SHA-256 (FIPS 180-4), HMAC (RFC 2104) and Base64, small and slow, for the voice fixture: ephemeral
// SIP credentials are base64(HMAC-SHA1(secret, username)) and the Bearer tokens are HS256 JWTs. The test
// target has no CryptoKit or CommonCrypto on Linux, and the fixture must not borrow the plugin's code.
// Checked against the RFC 2202 / RFC 4231 / FIPS vectors in VoicePeersTests and, end to end, by kamailio's
// auth_ephemeral accepting what it computes.

package enum Digests {
    package static func sha1(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var w = [UInt32](repeating: 0, count: 80)
        for block in Self.blocks(message) {
            for i in 0..<16 { w[i] = Self.word(block, i) }
            for i in 16..<80 { w[i] = Self.rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let t = Self.rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, Self.rotl(b, 30), a, t)
            }
            for (index, value) in [a, b, c, d, e].enumerated() { h[index] &+= value }
        }
        return h.flatMap(Self.bytes)
    }

    package static func sha256(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
        ]
        var w = [UInt32](repeating: 0, count: 64)
        for block in Self.blocks(message) {
            for i in 0..<16 { w[i] = Self.word(block, i) }
            for i in 16..<64 {
                let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                let t1 = hh &+ s1 &+ ((e & f) ^ (~e & g)) &+ Self.k256[i] &+ w[i]
                let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                let t2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (index, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[index] &+= value }
        }
        return h.flatMap(Self.bytes)
    }

    package static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] { Self.hmac(key, message, Self.sha1) }
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { Self.hmac(key, message, Self.sha256) }

    /// RFC 2104 with a 64-byte block (SHA-1 and SHA-256).
    private static func hmac(_ key: [UInt8], _ message: [UInt8], _ hash: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        return hash(block.map { $0 ^ 0x5C } + hash(block.map { $0 ^ 0x36 } + message))
    }

    package static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(start + 3, bytes.count)]) + [0, 0]
            let n = UInt32(chunk[0]) << 16 | UInt32(chunk[1]) << 8 | UInt32(chunk[2])
            let count = min(3, bytes.count - start)
            for i in 0...count { out.append(alphabet[Int(n >> (18 - 6 * UInt32(i)) & 63)]) }
            out += String(repeating: "=", count: 3 - count)
        }
        return out
    }

    /// RFC 4648 section 5 without padding, as JWTs use it.
    package static func base64URL(_ bytes: [UInt8]) -> String {
        String(Self.base64(bytes).compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    package static let k256: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    /// The message padded (0x80, zeros, the bit length big-endian) and cut into 64-byte blocks.
    private static func blocks(_ message: [UInt8]) -> [ArraySlice<UInt8>] {
        var padded = message + [0x80]
        padded += [UInt8](repeating: 0, count: (120 - padded.count % 64) % 64)
        padded += (0..<8).reversed().map { UInt8(truncatingIfNeeded: (UInt64(message.count) * 8) >> (8 * UInt64($0))) }
        return stride(from: 0, to: padded.count, by: 64).map { padded[$0..<$0 + 64] }
    }

    private static func word(_ block: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        let base = block.startIndex + 4 * index
        return (0..<4).reduce(0) { $0 << 8 | UInt32(block[base + $1]) }
    }

    private static func bytes(_ word: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
}
