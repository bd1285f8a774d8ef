package import AttendantPluginAPI
import Crypto

/// Hashes and HMACs for the channels (``ChannelHost/hashing``), with swift-crypto.
package struct HostHashing: ChannelHashing {
    package init() {}

    package func hash(_ algorithm: HashAlgorithm, _ data: [UInt8]) -> [UInt8] {
        switch algorithm {
        case .md5: Array(Insecure.MD5.hash(data: data))
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha384: Array(SHA384.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        @unknown default: preconditionFailure("\(algorithm) is not a hash this host knows")
        }
    }

    package func hmac(_ algorithm: HashAlgorithm, key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let key = SymmetricKey(data: key)
        return switch algorithm {
        case .md5: Array(HMAC<Insecure.MD5>.authenticationCode(for: data, using: key))
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha384: Array(HMAC<SHA384>.authenticationCode(for: data, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: data, using: key))
        @unknown default: preconditionFailure("\(algorithm) is not a hash this host knows")
        }
    }
}
