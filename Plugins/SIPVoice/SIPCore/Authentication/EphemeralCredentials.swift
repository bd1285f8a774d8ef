package import AttendantPluginAPI

/// Time-limited Digest credentials as Kamailio's `auth_ephemeral` module checks them (and TURN REST
/// servers issue them): the username is `<expiry unix time>:<user>` and the password is
/// `base64(HMAC(secret, username))`, with HMAC-SHA1 by default (the module's `sha_algorithm` 0; 1, 2 and 3
/// select SHA-256, SHA-384 and SHA-512).
package enum EphemeralCredentials {
    package enum Hash: Sendable, Hashable {
        case sha1, sha256, sha384, sha512
    }

    /// Credentials for `user` valid until `expiry` (seconds since 1970). With `user` empty the username
    /// is the timestamp alone, as the module accepts.
    package static func make(
        user: String,
        secret: String,
        expiry: Int64,
        hash: Hash = .sha1,
        hashing: any ChannelHashing
    ) -> DigestCredentials {
        let username = user.isEmpty ? String(expiry) : "\(expiry):\(user)"
        return DigestCredentials(username: username, password: self.password(username: username, secret: secret, hash: hash, hashing: hashing))
    }

    /// `base64(HMAC(secret, username))`, the HMAC computed by `hashing` (the host's).
    package static func password(username: String, secret: String, hash: Hash = .sha1, hashing: any ChannelHashing) -> String {
        let algorithm: HashAlgorithm =
            switch hash {
            case .sha1: .sha1
            case .sha256: .sha256
            case .sha384: .sha384
            case .sha512: .sha512
            }
        return Base64.encode(hashing.hmac(algorithm, key: Array(secret.utf8), Array(username.utf8)))
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with `=` padding (RFC 4648 section 4).
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output += [18, 12, 6, 0].map { Self.alphabet[Int((value >> $0) & 0x3F)] }
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let value = UInt32(bytes[index]) << 16
            output += [Self.alphabet[Int(value >> 18)], Self.alphabet[Int((value >> 12) & 0x3F)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if remaining == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output += [
                Self.alphabet[Int(value >> 18)], Self.alphabet[Int((value >> 12) & 0x3F)], Self.alphabet[Int((value >> 6) & 0x3F)], UInt8(ascii: "="),
            ]
        }
        return String(decoding: output, as: UTF8.self)
    }
}
