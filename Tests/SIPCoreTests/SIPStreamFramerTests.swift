import SIPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct SIPStreamFramerTests {
    /// Three messages back to back with keep-alives between them, as a registrar's TCP connection carries.
    static let stream: [UInt8] = Fixtures.registerChallenge + Array("\r\n".utf8) + Fixtures.registerOK + Fixtures.invite

    @Test func yieldsWholeMessagesWhateverTheChunkBoundaries() throws {
        let expected = try [Fixtures.registerChallenge, Fixtures.registerOK, Fixtures.invite].map { try SIPMessage(parsing: $0) }
        var generator = SeededGenerator(seed: 7)
        for round in 0..<300 {
            var framer = SIPStreamFramer(role: .client)
            var items: [SIPStreamFramer.Item] = []
            var offset = 0
            while offset < Self.stream.count {
                let size = round == 0 ? 1 : Int.random(in: 1...200, using: &generator)
                let end = min(Self.stream.count, offset + size)
                items += try framer.receive(Self.stream[offset..<end])
                offset = end
            }
            #expect(items == [.message(expected[0]), .keepAlivePong, .message(expected[1]), .message(expected[2])])
            #expect(framer.bufferedByteCount == 0)
        }
    }

    @Test func clientSeesEachCRLFAsAPong() throws {
        var framer = SIPStreamFramer(role: .client)
        #expect(try framer.receive([0x0D]) == [])
        #expect(try framer.receive([0x0A]) == [.keepAlivePong])
        #expect(try framer.receive(Array("\r\n\r\n".utf8)) == [.keepAlivePong, .keepAlivePong])
    }

    @Test func serverSeesDoubleCRLFAsAPingAndSkipsALoneCRLF() throws {
        var framer = SIPStreamFramer(role: .server)
        #expect(try framer.receive(Array("\r\n".utf8)) == [])
        #expect(try framer.receive(Array("\r\n".utf8)) == [.keepAlivePing])
        #expect(try framer.receive(Array("\r\n\r\n\r\n\r\n".utf8)) == [.keepAlivePing, .keepAlivePing])
        let items = try framer.receive(Array("\r\n".utf8) + Fixtures.cancel)
        #expect(items.count == 1)
        #expect(items == [.message(try SIPMessage(parsing: Fixtures.cancel))])
        #expect(SIPStreamFramer.ping == Array("\r\n\r\n".utf8))
        #expect(SIPStreamFramer.pong == Array("\r\n".utf8))
    }

    @Test func requiresContentLengthOnAStream() throws {
        var framer = SIPStreamFramer(role: .server)
        let bytes = Fixtures.message(["OPTIONS sip:a@example.com SIP/2.0", "Call-ID: x"])
        expectParseError(.contentLength) { _ = try framer.receive(bytes) }
        // The framing is lost: every later call fails the same way, even with a good message.
        expectParseError(.contentLength) { _ = try framer.receive(Fixtures.cancel) }
    }

    @Test func boundsAHeadThatNeverEnds() throws {
        var limits = SIPParserLimits()
        limits.maxHeadSize = 1024
        var framer = SIPStreamFramer(role: .server, limits: limits)
        _ = try framer.receive(Array("OPTIONS sip:a@example.com SIP/2.0\r\n".utf8))
        var thrown: SIPParseError?
        for _ in 0..<200 where thrown == nil {
            do { _ = try framer.receive(Array("X-Filler: 0123456789\r\n".utf8)) } catch { thrown = error }
        }
        #expect(thrown?.code == .headTooLarge)
        #expect(framer.bufferedByteCount < 2 * 1024)
    }

    @Test func refusesABodyOverTheLimitBeforeReadingIt() throws {
        var limits = SIPParserLimits()
        limits.maxBodySize = 100
        var framer = SIPStreamFramer(role: .server, limits: limits)
        expectParseError(.bodyTooLarge) {
            _ = try framer.receive(Fixtures.message(["MESSAGE sip:a@example.com SIP/2.0", "Content-Length: 101"]))
        }
    }

    @Test func rejectsGarbageBetweenMessages() {
        var framer = SIPStreamFramer(role: .server)
        expectParseError(.headerSyntax) { _ = try framer.receive(Array("\r\r\n".utf8)) }
        var other = SIPStreamFramer(role: .client)
        expectParseError(.headerSyntax) { _ = try other.receive(Array("\nOPTIONS".utf8)) }
    }

    /// The messages a chunk completed before its bad bytes are read, then the error; later chunks get the
    /// same error.
    @Test func readKeepsTheMessagesBeforeBadBytesInTheSameChunk() throws {
        var framer = SIPStreamFramer(role: .client)
        let reading = framer.read(Fixtures.cancel + Array("\r\n\nOPTIONS".utf8))
        #expect(reading.items.count == 2, "\(reading.items)")
        #expect(reading.items.first.map { if case .message = $0 { true } else { false } } == true)
        #expect(reading.items.last == .keepAlivePong)
        #expect(reading.failure?.code == .headerSyntax)
        #expect(framer.read(Fixtures.cancel).failure?.code == .headerSyntax)
    }

    @Test func manyMessagesKeepTheBufferSmall() throws {
        var framer = SIPStreamFramer(role: .server)
        var count = 0
        for _ in 0..<2000 {
            for item in try framer.receive(Fixtures.cancel + Array("\r\n\r\n".utf8)) {
                if case .message = item { count += 1 }
            }
        }
        #expect(count == 2000)
        #expect(framer.bufferedByteCount == 0)
    }
}
