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

    package static func run(_ bytes: [UInt8], limits: SIPParserLimits = SIPParserLimits()) -> Result {
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
        // The same bytes as a stream, whole and in pieces, on both sides of a connection.
        for role in [SIPStreamFramer.Role.client, .server] {
            for piece in [bytes.count, 1, 7] where piece > 0 {
                var framer = SIPStreamFramer(role: role, limits: limits)
                var offset = 0
                do {
                    while offset < bytes.count {
                        let end = min(bytes.count, offset + piece)
                        let items = try framer.receive(bytes[offset..<end])
                        for case .message(let message) in items { self.readEverything(message.headers, into: &result) }
                        result.streamItems += items.count
                        offset = end
                    }
                } catch {
                    result.errors.append(error)
                }
                if framer.bufferedByteCount > limits.maxHeadSize + limits.maxBodySize + piece + 4 {
                    result.violation = result.violation ?? "the framer holds \(framer.bufferedByteCount) bytes, more than one message's limits"
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
