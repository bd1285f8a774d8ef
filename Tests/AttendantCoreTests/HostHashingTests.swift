import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

/// The test kit's hashes (plain Swift) give what the daemon's (swift-crypto) give, so a plugin tested on
/// the kit's host hashes as it will in attendantd.
@Suite struct HostHashingTests {
    @Test(arguments: HashAlgorithm.allCases)
    func theKitHashesAsTheDaemonDoes(algorithm: HashAlgorithm) {
        var random = SystemRandomNumberGenerator()
        let daemon = HostHashing()
        let kit = InMemoryHashing()
        // Every length around the block and padding boundaries (55/56/64 for 64-byte blocks, 111/112/128
        // for 128-byte ones), and keys shorter and longer than a block.
        for length in 0...300 {
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let key = (0..<(length % 150)).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(kit.hash(algorithm, data) == daemon.hash(algorithm, data), "\(algorithm) of \(length) bytes")
            #expect(kit.hmac(algorithm, key: key, data) == daemon.hmac(algorithm, key: key, data), "HMAC-\(algorithm), key of \(key.count) bytes")
        }
    }
}
