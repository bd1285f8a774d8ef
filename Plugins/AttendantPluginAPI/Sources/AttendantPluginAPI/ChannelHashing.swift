// MARK: - Hashes (since API 1.4)

/// A hash algorithm the host computes for its channels (``ChannelHost/hashing``), so a plugin links no
/// cryptography library of its own.
public enum HashAlgorithm: String, Sendable, Hashable, CaseIterable {
    case md5 = "MD5"
    case sha1 = "SHA-1"
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"
}

/// Hashes and HMACs, computed by the host.
public protocol ChannelHashing: Sendable {
    func hash(_ algorithm: HashAlgorithm, _ data: [UInt8]) -> [UInt8]
    func hmac(_ algorithm: HashAlgorithm, key: [UInt8], _ data: [UInt8]) -> [UInt8]
}

/// The hashing of a host that has none: asking for a hash is a programming error there.
public struct UnavailableHashing: ChannelHashing {
    public init() {}

    public func hash(_ algorithm: HashAlgorithm, _ data: [UInt8]) -> [UInt8] {
        preconditionFailure("this host computes no hashes; give the test host a ChannelHashing")
    }

    public func hmac(_ algorithm: HashAlgorithm, key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        preconditionFailure("this host computes no hashes; give the test host a ChannelHashing")
    }
}
