/// Cuts a TCP byte stream into SIP messages (RFC 3261 section 18.3: on a stream, Content-Length is
/// mandatory and says where the body ends) and RFC 5626 keep-alives: a CRLFCRLF ping from the client,
/// which the server answers with a single CRLF.
///
/// Bytes may arrive split anywhere; the reader keeps what it has not used yet. A head without a
/// Content-Length or one that does not parse loses the framing: the caller must close the connection.
struct SimSIPStreamReader {
    enum Item: Sendable, Hashable {
        case message(SimSIPMessage)
        /// A CRLFCRLF keep-alive: answer with ``pong``.
        case ping
    }

    /// The answer to a ping.
    static let pong: [UInt8] = [13, 10]

    private var pending: [UInt8] = []

    /// Adds bytes read from the connection; returns every item they complete, in order.
    mutating func read(_ bytes: some Sequence<UInt8>) throws(SimSIPParseError) -> [Item] {
        self.pending.append(contentsOf: bytes)
        var items: [Item] = []
        var start = 0
        defer { self.pending.removeFirst(start) }
        while start < self.pending.count {
            // Between messages: a CRLFCRLF is a ping; a lone CRLF (or LF) is stray, skipped.
            if self.pending[start] == 13 || self.pending[start] == 10 {
                if self.hasPrefix([13, 10, 13, 10], at: start) {
                    items.append(.ping)
                    start += 4
                } else if self.hasPrefix([13, 10], at: start) {
                    // A CRLF that may yet become a ping waits for the next two bytes.
                    guard start + 2 < self.pending.count else { break }
                    if self.pending[start + 2] == 13 {
                        guard start + 3 < self.pending.count else { break }
                    }
                    start += 2
                } else if self.pending[start] == 10 {
                    start += 1
                } else {
                    guard start + 1 < self.pending.count else { break }
                    start += 1
                }
                continue
            }
            guard let (headEnd, bodyStart) = SimSIPParser.endOfHead(in: self.pending, from: start) else {
                if self.pending.count - start > SimSIPParser.maximumHeadSize {
                    throw SimSIPParseError("no end of the head within \(SimSIPParser.maximumHeadSize) bytes")
                }
                break
            }
            var message = try SimSIPParser.parseHead(self.pending[start..<headEnd])
            guard let length = try SimSIPParser.contentLength(of: message) else {
                throw SimSIPParseError("no Content-Length on a stream transport")
            }
            guard self.pending.count - bodyStart >= length else { break }
            message.body = Array(self.pending[bodyStart..<(bodyStart + length)])
            items.append(.message(message))
            start = bodyStart + length
        }
        return items
    }

    private func hasPrefix(_ prefix: [UInt8], at index: Int) -> Bool {
        index + prefix.count <= self.pending.count && self.pending[index..<(index + prefix.count)].elementsEqual(prefix)
    }
}
