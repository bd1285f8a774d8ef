import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

/// The kit's hashes against the published test vectors: FIPS 180-4's examples (SHA-1, SHA-2), RFC 1321's
/// test suite (MD5), RFC 2202 (HMAC-MD5, HMAC-SHA-1) and RFC 4231 (HMAC-SHA-2).
@Suite struct InMemoryHashingTests {
    let hashing = InMemoryHashing()

    static let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    static let twoBlocks512 =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

    @Test(arguments: [
        (HashAlgorithm.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
        (.md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
        (.md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        (.md5, String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        (.sha1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (.sha1, twoBlocks, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha256, twoBlocks, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (.sha384, "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (
            .sha512, "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
        (
            .sha512, twoBlocks512,
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
        ),
    ])
    func hashesMatchThePublishedVectors(algorithm: HashAlgorithm, message: String, expected: String) {
        #expect(hex(self.hashing.hash(algorithm, Array(message.utf8))) == expected)
    }

    @Test(arguments: [
        (HashAlgorithm.md5, "750c783e6ab0b503eaa86e310a5db738"),
        (.sha1, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        (.sha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (.sha384, "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"),
        (
            .sha512,
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
    ])
    func hmacsMatchTheRFCVectors(algorithm: HashAlgorithm, expected: String) {
        let mac = self.hashing.hmac(algorithm, key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == expected)
    }

    /// RFC 4231 test case 6: a key longer than the block is hashed first.
    @Test func anHMACKeyLongerThanTheBlockIsHashedFirst() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let mac = self.hashing.hmac(.sha256, key: key, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(hex(mac) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theTestHostHashesWithTheKitByDefault() {
        let host = InMemoryChannelHost()
        #expect(hex(host.hashing.hash(.sha256, Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
