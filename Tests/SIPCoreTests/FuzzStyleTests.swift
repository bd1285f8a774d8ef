import SIPCore
import TestSupport
import Testing

/// Thousands of mutated messages through the parser, the framer, the typed headers and the state
/// machines, on a seeded generator so every run sees the same inputs. Nothing may trap, every failure is a
/// `SIPParseError` (the parsers' typed throws guarantee the type; this checks the content), and what parses
/// must serialize back into the same message. Fuzz/SIPParser does the same under libFuzzer.
@Suite(.cpuBound) struct FuzzStyleTests {
    static let tokens: [[UInt8]] =
        [
            "\r\n", "\r\n\r\n", "\r\n ", ";", ",", "\"", "\\\"", "<", ">", ":", "=", " ", "\t", "@", "?", "&", "[", "]", "%",
            "SIP/2.0", "sip:", "Content-Length: 99999", "l: 5", "Via: SIP/2.0/UDP a;branch=z9hG4bK1\r\n", ";tag=", ";expires=",
            "999999999999", "4294967296", "-1", "z9hG4bK", "Digest ", "Bearer ", "realm=\"", "qop=\"auth-int\"", "stale=true",
            "Min-Expires: 1200\r\n", "Contact: *\r\n", "[2001:db8::1]:5060",
        ].map { Array($0.utf8) } + [[0], [0xFF], [0xC3], [0x7F], [0x0D], [0x0A]]

    static func mutate(_ seed: [UInt8], _ other: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<9, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1:
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            case 2:
                bytes.insert(contentsOf: tokens.randomElement(using: &generator)!, at: position)
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
            case 7 where !bytes.isEmpty:
                bytes[position] = [0x0D, 0x0A, 0x20, 0x3A, 0x3B, 0x2C, 0x22, 0x3C].randomElement(using: &generator)!
            default:
                let repeats = Int.random(in: 2...40, using: &generator)
                let token = tokens.randomElement(using: &generator)!
                bytes.insert(contentsOf: Array(repeating: token, count: repeats).joined(), at: position)
            }
        }
        return bytes
    }

    static var seeds: [[UInt8]] {
        Fixtures.all + [
            Array("\r\n\r\n".utf8),
            Fixtures.message(["OPTIONS sip:example.com SIP/2.0", "Subject: one,", "  two", "Route: <sip:a;lr>, <sip:b;lr>"]),
            Fixtures.message([
                "SIP/2.0 423 Interval Too Brief", "Via: SIP/2.0/TCP h;branch=z9hG4bK1", "CSeq: 1 REGISTER", "Min-Expires: 1200", "Content-Length: 0",
            ]),
        ]
    }

    @Test func mutatedMessagesNeverTrapAndFailWithTypedErrors() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let seeds = Self.seeds
        var parsed = 0
        var failed = 0
        var codes: [String: Int] = [:]
        for _ in 0..<3000 {
            let seed = seeds.randomElement(using: &generator)!
            let input = Self.mutate(seed, seeds.randomElement(using: &generator)!, using: &generator)
            let limits =
                Bool.random(using: &generator)
                ? SIPParserLimits()
                : SIPParserLimits(maxLineLength: 128, maxHeaderCount: 12, maxHeadSize: 1024, maxBodySize: 256)
            let result = SIPParserExercise.run(input, limits: limits)
            #expect(result.violation == nil, "\(result.violation ?? ""): \(input.text.debugDescription)")
            // The fuzz target's cuts too: pieces drawn from the input's hash.
            let drawn = SIPParserExercise.run(input, limits: limits, cuts: .drawnFromInput)
            #expect(drawn.violation == nil, "\(drawn.violation ?? ""): \(input.text.debugDescription)")
            for error in result.errors {
                #expect(!error.what.isEmpty)
                #expect(error.description.utf8.count < 400, "errors quote only excerpts")
                codes[error.code.rawValue, default: 0] += 1
            }
            if let message = result.message {
                parsed += 1
                Self.drive(message)
            } else {
                failed += 1
            }
        }
        // The mutations reach both sides of the parser and many error classes.
        #expect(parsed > 300)
        #expect(failed > 300)
        #expect(codes.count >= 8, "\(codes)")
    }

    /// Found by Fuzz/SIPParser: a datagram with as many headers as the limit allows and no Content-Length
    /// serializes with one line more (the serializer always writes Content-Length); the round-trip check
    /// must allow for it.
    @Test func aDatagramAtTheHeaderLimitRoundTrips() throws {
        let limits = SIPParserLimits(maxLineLength: 256, maxHeaderCount: 24, maxHeadSize: 2048, maxBodySize: 512)
        let lines = ["OPTIONS sip:example.com SIP/2.0"] + (0..<24).map { "X-Header-\($0): \($0)" }
        let result = SIPParserExercise.run(Fixtures.message(lines), limits: limits)
        #expect(result.message != nil)
        #expect(result.violation == nil, "\(result.violation ?? "")")
    }

    /// What parsed goes on into the parts that consume messages: the INVITE transaction for requests, the
    /// registration machine for responses (made to match its transaction, so it is really processed).
    static func drive(_ message: SIPMessage) {
        switch message {
        case .request(let request):
            guard
                let transaction = try? InviteServerTransaction(
                    invite: request,
                    localTag: "fuzz",
                    configuration: .init(reliable: false, ringTimeout: .seconds(1))
                )
            else { return }
            var copy = transaction
            _ = copy.start()
            _ = copy.receive(request)
            var cancel = request
            cancel.method = .cancel
            cancel.headers.set(.cseq, "\((try? request.headers.cseq.number) ?? 1) CANCEL")
            _ = copy.receive(cancel)
            _ = copy.accept(redirectingTo: SIPNameAddress(uri: SIPURI(host: "example.com")))
            _ = SIPServerTransactionKey(request)
        case .response(var response):
            guard var machine = try? RegistrationDriver(transport: "UDP", credentials: .digest(DigestCredentials(username: "u", password: "p")))
            else { return }
            machine.start()
            let sent = machine.lastRequest
            response.headers.set(.via, sent.headers[.via] ?? "")
            response.headers.set(.cseq, sent.headers[.cseq] ?? "")
            machine.apply(machine.machine.receive(response))
            machine.advance(by: .seconds(40))
        }
    }
}
