/// Reads SIP messages from bytes (RFC 3261 section 7), within ``SIPParserLimits``.
///
/// ``parse(datagram:)`` reads one whole UDP datagram; ``SIPStreamFramer`` cuts a TCP or TLS byte stream
/// into messages with the same head parser. Line folding is joined into one space; header names are
/// case-insensitive and compact forms are expanded; bytes that are not UTF-8, control characters, bare CR
/// or LF, and conflicting `Content-Length` values are refused.
package struct SIPMessageParser: Sendable {
    package var limits: SIPParserLimits

    package init(limits: SIPParserLimits = SIPParserLimits()) {
        self.limits = limits
    }

    /// Parses one datagram. Leading CRLFs are skipped; without `Content-Length` the body is the rest of the
    /// datagram; bytes after `Content-Length` are discarded (RFC 3261 section 18.3).
    package func parse(datagram bytes: [UInt8]) throws(SIPParseError) -> SIPMessage {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == SIPSyntax.cr, bytes[start + 1] == SIPSyntax.lf { start += 2 }
        guard start < bytes.count else { throw SIPParseError(.truncated, "no message, only line breaks") }
        guard let headEnd = Self.findHeadEnd(bytes, from: start, to: min(bytes.count, start + self.limits.maxHeadSize + 4)) else {
            if bytes.count - start > self.limits.maxHeadSize {
                throw SIPParseError(.headTooLarge, "no end of headers within \(self.limits.maxHeadSize) bytes")
            }
            throw SIPParseError(.truncated, "no blank line after the headers", at: .init(offset: bytes.count - start))
        }
        let head = try self.parseHead(bytes[start..<headEnd])
        let bodyStart = headEnd + 4
        let available = bytes.count - bodyStart
        let length: Int
        if let declared = head.contentLength {
            guard declared <= self.limits.maxBodySize else {
                throw SIPParseError(
                    .bodyTooLarge,
                    "Content-Length \(declared) exceeds \(self.limits.maxBodySize)",
                    at: .init(header: "Content-Length")
                )
            }
            guard declared <= available else {
                throw SIPParseError(
                    .contentLength,
                    "Content-Length \(declared) but only \(available) bytes follow",
                    at: .init(header: "Content-Length")
                )
            }
            length = declared
        } else {
            guard available <= self.limits.maxBodySize else {
                throw SIPParseError(.bodyTooLarge, "body of \(available) bytes exceeds \(self.limits.maxBodySize)")
            }
            length = available
        }
        return head.message(body: Array(bytes[bodyStart..<(bodyStart + length)]))
    }

    /// The index of the CRLFCRLF that ends the head, searching `from..<to`.
    static func findHeadEnd(_ bytes: [UInt8], from: Int, to: Int) -> Int? {
        var index = from
        while index + 3 < to {
            if bytes[index + 3] != SIPSyntax.lf {
                // Skip ahead: the LF that would end a match cannot be before index + 3.
                index += bytes[index + 3] == SIPSyntax.cr ? 1 : 4
                continue
            }
            if bytes[index] == SIPSyntax.cr, bytes[index + 1] == SIPSyntax.lf, bytes[index + 2] == SIPSyntax.cr {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Parses the start line and headers: `head` runs from the first byte of the start line up to, not
    /// including, the CRLFCRLF.
    func parseHead(_ head: ArraySlice<UInt8>) throws(SIPParseError) -> SIPHead {
        guard head.count <= self.limits.maxHeadSize else {
            throw SIPParseError(.headTooLarge, "head of \(head.count) bytes exceeds \(self.limits.maxHeadSize)")
        }
        let base = head.startIndex
        var lines: [(range: Range<Int>, number: Int)] = []
        var lineStart = head.startIndex
        var index = head.startIndex
        while index <= head.endIndex {
            let atEnd = index == head.endIndex
            if !atEnd {
                let byte = head[index]
                if byte == SIPSyntax.cr {
                    guard index + 1 < head.endIndex, head[index + 1] == SIPSyntax.lf else {
                        throw SIPParseError(.headerSyntax, "bare CR", at: .init(line: lines.count + 1, offset: index - base))
                    }
                } else if byte == SIPSyntax.lf {
                    throw SIPParseError(.headerSyntax, "bare LF", at: .init(line: lines.count + 1, offset: index - base))
                } else {
                    if SIPSyntax.isForbiddenControl(byte) {
                        throw SIPParseError(
                            .encoding,
                            "control character 0x\(String(byte, radix: 16))",
                            at: .init(line: lines.count + 1, offset: index - base)
                        )
                    }
                    index += 1
                    continue
                }
            }
            guard index - lineStart <= self.limits.maxLineLength else {
                throw SIPParseError(
                    .lineTooLong,
                    "line longer than \(self.limits.maxLineLength) bytes",
                    at: .init(line: lines.count + 1, offset: lineStart - base)
                )
            }
            lines.append((lineStart..<index, lines.count + 1))
            if atEnd { break }
            index += 2
            lineStart = index
        }
        guard let startLine = lines.first else { throw SIPParseError(.startLine, "empty message") }
        let start = try self.parseStartLine(head[startLine.range], offset: startLine.range.lowerBound - base)

        var fields: [SIPHeaderField] = []
        var pending: (name: SIPHeaderName, value: [UInt8], line: Int, offset: Int)?
        var contentLength: Int?
        func finish(_ pending: (name: SIPHeaderName, value: [UInt8], line: Int, offset: Int)) throws(SIPParseError) {
            guard pending.value.count <= self.limits.maxLineLength else {
                throw SIPParseError(
                    .lineTooLong,
                    "folded header longer than \(self.limits.maxLineLength) bytes",
                    at: .init(header: pending.name.canonical, line: pending.line)
                )
            }
            guard let text = String(validating: pending.value, as: UTF8.self) else {
                throw SIPParseError(
                    .encoding,
                    "value is not UTF-8",
                    at: .init(header: pending.name.canonical, line: pending.line, offset: pending.offset)
                )
            }
            let value = SIPSyntax.trimmed(text)
            if pending.name == .contentLength {
                guard let length = SIPSyntax.parseUInt32(value) else {
                    throw SIPParseError(.contentLength, "Content-Length is not a number", at: .init(header: "Content-Length", line: pending.line))
                }
                if let contentLength, contentLength != Int(length) {
                    throw SIPParseError(
                        .contentLength,
                        "two different Content-Length values",
                        at: .init(header: "Content-Length", line: pending.line)
                    )
                }
                contentLength = Int(length)
            }
            guard fields.count < self.limits.maxHeaderCount else {
                throw SIPParseError(.tooManyHeaders, "more than \(self.limits.maxHeaderCount) headers", at: .init(line: pending.line))
            }
            fields.append(SIPHeaderField(pending.name, value))
        }
        for line in lines.dropFirst() {
            let bytes = head[line.range]
            let offset = line.range.lowerBound - base
            if let first = bytes.first, SIPSyntax.isWhitespace(first) {
                guard var folded = pending else {
                    throw SIPParseError(.headerSyntax, "continuation line without a header before it", at: .init(line: line.number, offset: offset))
                }
                folded.value.append(SIPSyntax.space)
                folded.value.append(contentsOf: bytes.drop(while: SIPSyntax.isWhitespace))
                pending = folded
                continue
            }
            if let finished = pending { try finish(finished) }
            guard let nameEnd = bytes.firstIndex(where: { !SIPSyntax.isToken($0) }), nameEnd > bytes.startIndex else {
                throw SIPParseError(.headerSyntax, "expected 'Name: value'", at: .init(line: line.number, offset: offset))
            }
            var colon = nameEnd
            while colon < bytes.endIndex, SIPSyntax.isWhitespace(bytes[colon]) { colon += 1 }
            guard colon < bytes.endIndex, bytes[colon] == UInt8(ascii: ":") else {
                throw SIPParseError(.headerSyntax, "expected ':' after the header name", at: .init(line: line.number, offset: offset))
            }
            let name = SIPHeaderName(String(decoding: bytes[bytes.startIndex..<nameEnd], as: UTF8.self))
            pending = (name, Array(bytes[(colon + 1)...]), line.number, offset)
        }
        if let finished = pending { try finish(finished) }
        return SIPHead(start: start, headers: SIPHeaders(fields), contentLength: contentLength)
    }

    private func parseStartLine(_ line: ArraySlice<UInt8>, offset: Int) throws(SIPParseError) -> SIPHead.Start {
        guard let text = String(validating: line, as: UTF8.self) else {
            throw SIPParseError(.encoding, "start line is not UTF-8", at: .init(line: 1, offset: offset))
        }
        let location = SIPParseError.Location(line: 1, offset: offset)
        if text.utf8.count >= 4, SIPSyntax.equalsIgnoringCase(text.prefix(4), "SIP/") {
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, SIPSyntax.equalsIgnoringCase(parts[0], "SIP/2.0") else {
                throw SIPParseError(.startLine, "expected 'SIP/2.0 <code> <reason>'", at: location)
            }
            guard parts[1].utf8.count == 3, let code = SIPSyntax.parseUInt32(parts[1]), (100...699).contains(code) else {
                throw SIPParseError(.startLine, "status code must be 100 to 699", at: location)
            }
            return .response(statusCode: Int(code), reasonPhrase: parts.count > 2 ? String(parts[2]) : "")
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else {
            throw SIPParseError(.startLine, "expected 'METHOD Request-URI SIP/2.0'", at: location)
        }
        guard SIPSyntax.isToken(parts[0]) else {
            throw SIPParseError(.startLine, "method is not a token", at: location)
        }
        guard SIPSyntax.equalsIgnoringCase(parts[2], "SIP/2.0") else {
            throw SIPParseError(.startLine, "unsupported version \(SIPURI.excerpt(parts[2]))", at: location)
        }
        let uri: SIPURI
        do {
            uri = try SIPURI(parsing: parts[1])
        } catch {
            throw SIPParseError(.startLine, "Request-URI: \(error.what)", at: location)
        }
        return .request(method: SIPMethod(String(parts[0])), uri: uri)
    }
}

/// A parsed head, waiting for its body.
struct SIPHead: Sendable {
    enum Start: Sendable {
        case request(method: SIPMethod, uri: SIPURI)
        case response(statusCode: Int, reasonPhrase: String)
    }

    var start: Start
    var headers: SIPHeaders
    var contentLength: Int?

    func message(body: [UInt8]) -> SIPMessage {
        switch self.start {
        case .request(let method, let uri):
            .request(SIPRequest(method: method, uri: uri, headers: self.headers, body: body))
        case .response(let statusCode, let reasonPhrase):
            .response(SIPResponse(statusCode: statusCode, reasonPhrase: reasonPhrase, headers: self.headers, body: body))
        }
    }
}

extension SIPMessage {
    /// Parses one whole message (a datagram); see ``SIPMessageParser/parse(datagram:)``.
    package init(parsing bytes: [UInt8], limits: SIPParserLimits = SIPParserLimits()) throws(SIPParseError) {
        self = try SIPMessageParser(limits: limits).parse(datagram: bytes)
    }

    /// Parses one whole message from text.
    package init(parsing text: String, limits: SIPParserLimits = SIPParserLimits()) throws(SIPParseError) {
        self = try SIPMessageParser(limits: limits).parse(datagram: Array(text.utf8))
    }
}
