import TestSupport
import Testing

@testable import CXoneCore

/// Thousands of mutated frames through every wire decoder, on a seeded generator so every run sees the
/// same inputs. Nothing may trap, every failure is a short `CXoneWireError`, and what decodes must encode
/// into bytes that decode to the same value. Fuzz/CXoneEvents does the same under libFuzzer.
@Suite(.cpuBound) struct WireFuzzStyleTests {
    static let tokens: [[UInt8]] =
        [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "false", "-0", "1e400", "1.5",
            "9223372036854775808", "\"eventType\":", "\"MessageCreated\"", "\"ThreadRecovered\"", "\"EventInS3\"", "\"SendMessage\"",
            "\"postback\":{", "\"data\":", "\"error\":{", "\"createdAt\":\"2024-02-30T25:00:00Z\"", "\"direction\":\"outbound\"",
            "\"idOnExternalPlatform\":\"X\"", "\"payload\":", "\"url\":\"file:///\"", "\"pong\"", "{{a|b}}",
        ].map { Array($0.utf8) } + [[0], [0xFF], [0xC3], [0xE2, 0x80, 0xA8]]

    static func mutate(_ seed: [UInt8], _ other: [UInt8], using generator: inout SeededRandom) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<8, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1:
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            case 2:
                bytes.insert(contentsOf: tokens.randomElement(using: &generator) ?? [], at: position)
            case 3 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...32, using: &generator)))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &generator))
            case 5:
                bytes = Array(bytes.prefix(position))
            case 6 where !other.isEmpty:
                let cut = Int.random(in: 0..<other.count, using: &generator)
                bytes = Array(bytes.prefix(position)) + other[cut...]
            default:
                let token = tokens.randomElement(using: &generator) ?? []
                bytes.insert(contentsOf: Array(repeating: token, count: Int.random(in: 2...40, using: &generator)).joined(), at: position)
            }
        }
        return bytes
    }

    @Test func samplesPassTheExercise() {
        let samples = WireSamples.all
        #expect(samples.count >= 18)
        for sample in samples {
            let result = CXoneWireExercise.run(sample)
            #expect(result.violation == nil, "\(sample.text)")
            let isTimestamp = CXoneTimestamp.parse(sample.text) != nil
            #expect(result.inbound != nil || result.outbound != nil || result.bodies > 0 || isTimestamp, "\(sample.text)")
        }
    }

    @Test func mutatedFramesNeverTrapAndFailWithTypedErrors() {
        var generator = SeededRandom(seed: 0xC0DE)
        let seeds = WireSamples.all
        var decoded = 0
        var codes: [String: Int] = [:]
        for _ in 0..<4000 {
            let seed = seeds.randomElement(using: &generator) ?? []
            let input = Self.mutate(seed, seeds.randomElement(using: &generator) ?? [], using: &generator)
            let limits = Bool.random(using: &generator) ? CXoneWireLimits() : CXoneWireLimits(maxFrameSize: 1024, maxDepth: 8)
            let result = CXoneWireExercise.run(input, limits: limits)
            #expect(result.violation == nil, "\(result.violation ?? ""): \(input.text.debugDescription)")
            if result.inbound != nil || result.outbound != nil || result.bodies > 0 { decoded += 1 }
            for error in result.errors { codes[error.code.rawValue, default: 0] += 1 }
        }
        // The mutations must reach both outcomes and most error classes, or the test checks little.
        #expect(decoded > 200, "\(decoded) decoded")
        for code in ["not-json", "missing-field", "wrong-type", "unrecognized", "too-deep", "frame-too-large"] {
            #expect(codes[code, default: 0] > 0, "no \(code) in \(codes)")
        }
    }
}
