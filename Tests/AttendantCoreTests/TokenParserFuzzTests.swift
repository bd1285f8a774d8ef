import AttendantPluginAPI
import AttendantPluginKit
import TestSupport
import Testing

@testable import AttendantCore

/// The token parsers (JSON, base64url, JWT, inspection) fed many random and mutated inputs: each gives
/// a token or a typed error, never a crash, and no error message repeats the input. Seeded, so a
/// failure reproduces; `Fuzz/` has the coverage-guided libFuzzer target for longer runs.
@Suite(.cpuBound) struct TokenParserFuzzTests {
    static let seeds: [String] = [
        TestJWT.capability(issuedAt: 1_800_000_000),
        TestJWT.make(claims: #"{"exp":1800003600,"nbf":1799999990,"grants":{"identity":"bob","voice":{"incoming":{"allow":true}}}}"#),
        TestJWT.make(claims: #"{"exp":1800003600,"scope":"scope:client:outgoing?appSid=AP1"}"#),
        TestJWT.make(claims: #"{"a":[1,2.5e3,-0.1,true,false,null,{"b":"\u00e9\ud83d\ude00"}]}"#),
        "d41d8cd98f00b204e9800998ecf8427e",
    ]

    /// Bytes that matter to the parsers.
    static let interesting: [UInt8] = Array(#"{}[]":,.-_=+/\0123456789eEtrufalsn "#.utf8) + [0x00, 0x0A, 0x7F, 0x80, 0xC3, 0xFF]

    func mutate(_ input: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.insert(Self.interesting.randomElement(using: &random)!, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty: bytes.insert(bytes[position], at: position)
            default: bytes.insert(UInt8(ascii: "."), at: position)
            }
        }
        return bytes
    }

    /// A JWT whose payload is a mutated JSON document, so the JSON parser sees deep and odd input.
    func mutatedPayloadJWT(_ random: inout SeededRandom) -> String {
        let documents = [
            #"{"exp":1800003600,"scope":"scope:client:incoming?clientName=a"}"#,
            #"{"grants":{"voice":{"incoming":{"allow":true}}},"exp":1.8e9}"#,
            String(repeating: "[", count: Int.random(in: 1...200, using: &random)) + "1"
                + String(repeating: "]", count: Int.random(in: 1...200, using: &random)),
            #"{"s":"\u0041\\\"\/","n":-0.0e-0}"#,
        ]
        let payload = self.mutate(Array(documents.randomElement(using: &random)!.utf8), &random)
        let encoded = TestJWT.base64url(String(decoding: payload, as: UTF8.self))
        return "\(TestJWT.base64url(#"{"alg":"HS256"}"#)).\(encoded).sig"
    }

    @Test func manyRandomAndMutatedTokensNeverCrash() {
        var random = SeededRandom(seed: 7)
        let now = UnixTime(secondsSince1970: 1_800_000_000)
        var accepted = 0
        var refused = 0
        for round in 0..<30_000 {
            let text: String
            switch round % 4 {
            case 0: text = String(decoding: self.mutate(Array(Self.seeds.randomElement(using: &random)!.utf8), &random), as: UTF8.self)
            case 1: text = self.mutatedPayloadJWT(&random)
            case 2:
                let length = Int.random(in: 0...64, using: &random)
                text = String(decoding: (0..<length).map { _ in Self.interesting.randomElement(using: &random)! }, as: UTF8.self)
            default:
                let parts = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    TestJWT.base64url(
                        String(
                            decoding: (0..<Int.random(in: 0...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) },
                            as: UTF8.self
                        )
                    )
                }
                text = parts.joined(separator: ".")
            }
            do {
                _ = try InspectedToken(text, from: "token file /fuzz", now: now)
                accepted += 1
            } catch {
                refused += 1
                let trimmed = InspectedToken.trimmed(text)
                if trimmed.count >= 12 {
                    #expect(!error.message.contains(trimmed), "round \(round): the message repeats the input")
                }
            }
        }
        #expect(accepted + refused == 30_000)
        #expect(accepted > 100 && refused > 10_000, "the inputs reach both outcomes (\(accepted) accepted, \(refused) refused)")
    }

    @Test func jsonAndBase64URLOnRandomBytes() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...48, using: &random)).map { _ in
                Bool.random(using: &random) ? Self.interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            _ = try? JSONValue.parse(bytes)
            if let decoded = Base64URL.decode(bytes) {
                #expect(Base64URL.decode(Array(Base64URL.encode(decoded).utf8)) == decoded)
            }
        }
    }
}
