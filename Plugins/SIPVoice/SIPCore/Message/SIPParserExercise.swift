/// What the fuzz target (Fuzz/SIPParser) and the fuzz-style unit test do with one input: parse it as a
/// datagram and as a stream cut into pieces, read every typed header, and check that what parses also
/// serializes into bytes that parse to the same message. Failures are ``SIPParseError`` by type; a broken
/// invariant is returned as text (the fuzz target traps on it, the unit test records it).
package enum SIPParserExercise {
    package struct Result: Sendable {
        /// The datagram parse's message, if it succeeded.
        package var message: SIPMessage?
        /// Every error the parsers and accessors reported.
        package var errors: [SIPParseError] = []
        /// Items the stream framers produced.
        package var streamItems = 0
        /// An invariant that did not hold.
        package var violation: String?
    }

    /// How the stream passes cut the input, besides feeding it whole.
    package enum Cuts: Sendable {
        /// Byte by byte, then in 7-byte pieces: every boundary of every input, at the cost of a framer call
        /// a byte (the unit tests, which run a few thousand inputs).
        case everyByte
        /// Pieces of 1 to 32 bytes, their sizes drawn from a generator seeded with the input's own hash: the
        /// cuts change from input to input, and the same input is always cut the same way, so a crash
        /// reproduces. The fuzz target uses this: with every byte it ran a fifth as many inputs a second.
        case drawnFromInput
    }

    /// What one stream pass read: its items, then the class of the error that ended it, if any.
    private typealias StreamRead = (items: [SIPStreamFramer.Item], error: SIPParseError.Code?)

    package static func run(_ bytes: [UInt8], limits: SIPParserLimits = SIPParserLimits(), cuts: Cuts = .everyByte) -> Result {
        var result = Result()
        let parser = SIPMessageParser(limits: limits)
        do {
            let message = try parser.parse(datagram: bytes)
            result.message = message
            self.readEverything(message.headers, into: &result)
            if case .request(let request) = message {
                _ = SIPResponse.answering(request, statusCode: 180, toTag: "fuzz").serialized()
            }
            result.violation = self.checkRoundTrip(message, parser: parser)
        } catch {
            result.errors.append(error)
        }
        // The same bytes as a stream, whole and in pieces, on both sides of a connection. How the stream
        // is cut must not change what the framer reads from it: the same items, then the same error.
        let schedules: [PieceSizes] =
            switch cuts {
            case .everyByte: [.fixed(bytes.count), .fixed(1), .fixed(7)]
            case .drawnFromInput: [.fixed(bytes.count), .drawn(seed: PieceSizes.hash(bytes))]
            }
        for role in [SIPStreamFramer.Role.client, .server] {
            var whole: StreamRead?
            for schedule in schedules {
                var framer = SIPStreamFramer(role: role, limits: limits)
                var sizes = schedule
                var largest = 0
                var offset = 0
                var read: StreamRead = ([], nil)
                while offset < bytes.count, read.error == nil {
                    let piece = sizes.next()
                    largest = max(largest, piece)
                    let end = min(bytes.count, offset + piece)
                    let reading = framer.read(bytes[offset..<end])
                    read.items += reading.items
                    if let failure = reading.failure {
                        result.errors.append(failure)
                        read.error = failure.code
                    }
                    offset = end
                }
                if framer.bufferedByteCount > limits.maxHeadSize + limits.maxBodySize + largest + 4 {
                    result.violation = result.violation ?? "the framer holds \(framer.bufferedByteCount) bytes, more than one message's limits"
                }
                result.streamItems += read.items.count
                guard let whole else {
                    for case .message(let message) in read.items { self.readEverything(message.headers, into: &result) }
                    whole = read
                    continue
                }
                if read.items != whole.items || read.error != whole.error {
                    result.violation =
                        result.violation
                        ?? "the \(role) framer read \(read.items.count) items and \(read.error.map { "\($0)" } ?? "no error") in pieces of up to \(largest) bytes, but \(whole.items.count) items and \(whole.error.map { "\($0)" } ?? "no error") whole"
                }
            }
        }
        return result
    }

    private static func readEverything(_ headers: SIPHeaders, into result: inout Result) {
        do { _ = try headers.callID } catch { result.errors.append(error) }
        do { _ = try headers.cseq } catch { result.errors.append(error) }
        do { _ = try headers.from.tag } catch { result.errors.append(error) }
        do { _ = try headers.to.description } catch { result.errors.append(error) }
        do { _ = try headers.vias.map(\.description) } catch { result.errors.append(error) }
        do { _ = try headers.topVia.rport } catch { result.errors.append(error) }
        do { _ = try headers.contacts.map { ($0.instanceID, $0.registrationID, $0.expires) } } catch { result.errors.append(error) }
        do { _ = try headers.routes } catch { result.errors.append(error) }
        do { _ = try headers.recordRoutes } catch { result.errors.append(error) }
        do { _ = try headers.paths } catch { result.errors.append(error) }
        do { _ = try headers.expires } catch { result.errors.append(error) }
        do { _ = try headers.minExpires } catch { result.errors.append(error) }
        do { _ = try headers.flowTimer } catch { result.errors.append(error) }
        do { _ = try headers.maxForwards } catch { result.errors.append(error) }
        do { _ = try headers.contentLength } catch { result.errors.append(error) }
        do { _ = try headers.retryAfter } catch { result.errors.append(error) }
        do { _ = try headers.supported } catch { result.errors.append(error) }
        do { _ = try headers.require } catch { result.errors.append(error) }
        do { _ = try headers.wwwAuthenticate.map { ($0.qopOptions, $0.isStale, $0.description) } } catch { result.errors.append(error) }
        do { _ = try headers.proxyAuthenticate.map(\.description) } catch { result.errors.append(error) }
        do { _ = try headers.authorization.map(\.description) } catch { result.errors.append(error) }
        do { _ = try headers.proxyAuthorization.map(\.description) } catch { result.errors.append(error) }
        _ = headers.isWildcardContact
        _ = headers.announces("outbound")
    }

    /// Serializing a parsed message and parsing it again gives the same message (Content-Length aside,
    /// which the serializer always writes last), and a stream framer reads it back as one message.
    private static func checkRoundTrip(_ message: SIPMessage, parser: SIPMessageParser) -> String? {
        let bytes = message.serialized()
        var limits = parser.limits
        // Canonical names and one space after the colon may lengthen a line or the head a little, and
        // the serializer adds a Content-Length line when the datagram had none.
        limits.maxHeadSize += 8 * limits.maxHeaderCount + 64
        limits.maxLineLength += 64
        limits.maxHeaderCount += 1
        let reparsed: SIPMessage
        do {
            reparsed = try SIPMessageParser(limits: limits).parse(datagram: bytes)
        } catch {
            return "a parsed message serialized into bytes that do not parse: \(error)"
        }
        guard self.withoutContentLength(reparsed) == self.withoutContentLength(message) else {
            return "a parsed message serialized into a different message"
        }
        var framer = SIPStreamFramer(role: .server, limits: limits)
        let split = bytes.count / 2
        do {
            let items = try framer.receive(bytes[..<split]) + framer.receive(bytes[split...])
            guard items.count == 1, case .message(let framed) = items[0], self.withoutContentLength(framed) == self.withoutContentLength(message)
            else {
                return "the framer read a serialized message back as \(items.count) different items"
            }
        } catch {
            return "the framer refused a serialized message: \(error)"
        }
        return nil
    }

    private static func withoutContentLength(_ message: SIPMessage) -> SIPMessage {
        switch message {
        case .request(var request):
            request.headers.remove(.contentLength)
            return .request(request)
        case .response(var response):
            response.headers.remove(.contentLength)
            return .response(response)
        }
    }
}

/// The sizes of the pieces a stream pass feeds the framer.
private struct PieceSizes {
    private var size: Int
    /// SplitMix64's state, when the sizes are drawn.
    private var state: UInt64?

    static func fixed(_ size: Int) -> Self { Self(size: max(1, size), state: nil) }
    static func drawn(seed: UInt64) -> Self { Self(size: 1, state: seed) }

    /// FNV-1a: the same bytes always give the same seed (Hasher is seeded anew in each process).
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    mutating func next() -> Int {
        guard var state else { return self.size }
        state &+= 0x9E37_79B9_7F4A_7C15
        self.state = state
        var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return 1 + Int((mixed ^ (mixed >> 31)) % 32)
    }
}
