/// Cuts a stream transport's bytes (TCP, TLS) into whole SIP messages and RFC 5626 keep-alives.
///
/// Feed it whatever the socket delivers, in chunks of any size, and take items until it has none. On a
/// stream every message must carry `Content-Length` (RFC 3261 section 18.3). Keep-alives sit between
/// messages (RFC 5626 section 4.4.1): the client sends a double CRLF "ping" and the server answers with a
/// single CRLF "pong". So a ``Role/client`` framer reports each CRLF it receives as ``Item/keepAlivePong``,
/// and a ``Role/server`` framer reports each CRLFCRLF as ``Item/keepAlivePing`` and skips a lone CRLF before
/// a message (RFC 3261 section 7.5 asks parsers to ignore those).
///
/// After an error the stream's framing is lost: every later call throws the same error, and the caller
/// should close the connection. Memory stays within one message's limits plus the chunk being fed, as long
/// as the caller drains items after each ``append(_:)`` (``read(_:)`` does both).
package struct SIPStreamFramer: Sendable {
    package enum Role: Sendable, Hashable {
        /// The side that registered and sends pings: CRLFs that arrive are pongs.
        case client
        /// The side that accepted the connection: CRLFCRLFs that arrive are pings.
        case server
    }

    package enum Item: Sendable, Hashable {
        case message(SIPMessage)
        /// A CRLFCRLF ping arrived (server role): answer with a CRLF pong.
        case keepAlivePing
        /// A CRLF pong arrived (client role): the flow is alive.
        case keepAlivePong
    }

    /// What a server sends to answer a ping, and a client sends as a ping (RFC 5626 section 4.4.1).
    package static let pong: [UInt8] = [SIPSyntax.cr, SIPSyntax.lf]
    package static let ping: [UInt8] = [SIPSyntax.cr, SIPSyntax.lf, SIPSyntax.cr, SIPSyntax.lf]

    package let role: Role
    private let parser: SIPMessageParser
    private var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    private var start = 0
    /// Where the search for the end of the head resumes.
    private var scanFrom = 0
    private var pending: (head: SIPHead, bodyStart: Int, length: Int)?
    private var failure: SIPParseError?

    package init(role: Role, limits: SIPParserLimits = SIPParserLimits()) {
        self.role = role
        self.parser = SIPMessageParser(limits: limits)
    }

    /// Bytes received but not yet returned as items.
    package var bufferedByteCount: Int { self.buffer.count - self.start }

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        self.buffer.append(contentsOf: bytes)
    }

    /// What a chunk completed, in order, and the error that ended the stream's framing after them, if any.
    package struct Reading: Sendable, Hashable {
        package var items: [Item] = []
        /// Bytes after the items broke the framing: handle the items, then close the stream.
        package var failure: SIPParseError?
    }

    /// Appends the chunk and returns every item that is now complete, then the error, if bytes after them
    /// broke the framing. A message that came whole before bad bytes in the same chunk is still read: an
    /// INVITE followed by garbage in one TCP read still rings.
    package mutating func read(_ bytes: some Sequence<UInt8>) -> Reading {
        self.append(bytes)
        var reading = Reading()
        do {
            while let item = try self.next() { reading.items.append(item) }
        } catch {
            reading.failure = error
        }
        return reading
    }

    /// As ``read(_:)``, for a caller that needs nothing from a stream that failed (tests, the benchmarks'
    /// peers): an error is thrown, and the items before it in the chunk are dropped with it.
    package mutating func receive(_ bytes: some Sequence<UInt8>) throws(SIPParseError) -> [Item] {
        let reading = self.read(bytes)
        if let failure = reading.failure { throw failure }
        return reading.items
    }

    /// The next complete item, or nil until more bytes arrive.
    package mutating func next() throws(SIPParseError) -> Item? {
        if let failure { throw failure }
        do {
            let item = try self.step()
            self.compact()
            return item
        } catch {
            self.failure = error
            throw error
        }
    }

    private mutating func step() throws(SIPParseError) -> Item? {
        let limits = self.parser.limits
        if self.pending == nil {
            // Between messages: keep-alives and stray CRLFs.
            while self.start < self.buffer.count, self.buffer[self.start] == SIPSyntax.cr {
                guard self.start + 1 < self.buffer.count else { return nil }
                guard self.buffer[self.start + 1] == SIPSyntax.lf else {
                    throw SIPParseError(.headerSyntax, "bare CR between messages")
                }
                switch self.role {
                case .client:
                    self.start += 2
                    return .keepAlivePong
                case .server:
                    guard self.start + 2 < self.buffer.count else { return nil }
                    guard self.buffer[self.start + 2] == SIPSyntax.cr else {
                        self.start += 2  // a lone CRLF before a message
                        continue
                    }
                    guard self.start + 3 < self.buffer.count else { return nil }
                    guard self.buffer[self.start + 3] == SIPSyntax.lf else {
                        throw SIPParseError(.headerSyntax, "bare CR between messages")
                    }
                    self.start += 4
                    return .keepAlivePing
                }
            }
            if self.start < self.buffer.count, self.buffer[self.start] == SIPSyntax.lf {
                throw SIPParseError(.headerSyntax, "bare LF between messages")
            }
            guard self.start < self.buffer.count else { return nil }
            let searchFrom = max(self.start, self.scanFrom)
            let searchTo = min(self.buffer.count, self.start + limits.maxHeadSize + 4)
            guard let headEnd = SIPMessageParser.findHeadEnd(self.buffer, from: searchFrom, to: searchTo) else {
                if self.buffer.count - self.start > limits.maxHeadSize + 3 {
                    throw SIPParseError(.headTooLarge, "no end of headers within \(limits.maxHeadSize) bytes")
                }
                self.scanFrom = max(self.start, self.buffer.count - 3)
                return nil
            }
            let head = try self.parser.parseHead(self.buffer[self.start..<headEnd])
            guard let length = head.contentLength else {
                throw SIPParseError(.contentLength, "no Content-Length on a stream transport", at: .init(header: "Content-Length"))
            }
            guard length <= limits.maxBodySize else {
                throw SIPParseError(.bodyTooLarge, "Content-Length \(length) exceeds \(limits.maxBodySize)", at: .init(header: "Content-Length"))
            }
            self.pending = (head, headEnd + 4, length)
        }
        guard let pending = self.pending, self.buffer.count - pending.bodyStart >= pending.length else { return nil }
        let body = Array(self.buffer[pending.bodyStart..<(pending.bodyStart + pending.length)])
        self.start = pending.bodyStart + pending.length
        self.scanFrom = self.start
        self.pending = nil
        return .message(pending.head.message(body: body))
    }

    /// Drops consumed bytes once they are the larger part of the buffer.
    private mutating func compact() {
        if self.start == self.buffer.count {
            self.buffer.removeAll(keepingCapacity: self.buffer.capacity <= 64 * 1024)
            self.scanFrom = 0
            if let pending {
                self.pending = (pending.head, pending.bodyStart - self.start, pending.length)
            }
            self.start = 0
        } else if self.start > 4096, self.start * 2 > self.buffer.count {
            let shift = self.start
            self.buffer.removeFirst(shift)
            self.start = 0
            self.scanFrom = max(0, self.scanFrom - shift)
            if let pending {
                self.pending = (pending.head, pending.bodyStart - shift, pending.length)
            }
        }
    }
}
