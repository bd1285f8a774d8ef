/// Why bytes are not a SIP message, in words fit for a `400` reason phrase.
struct SimSIPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

/// Reads SIP messages (RFC 3261 section 7) from datagrams and from message heads cut out of a stream.
///
/// Lenient where the RFC asks receivers to be (section 7.5: CRLFs before the start line are skipped; bare
/// LF line ends are accepted; section 7.3.1: folded lines are joined, names are case-insensitive), strict
/// where a wrong guess would misframe the stream (Content-Length).
enum SimSIPParser {
    /// The largest head and body the simulator accepts: far above anything a user agent sends it.
    static let maximumHeadSize = 64 * 1024
    static let maximumBodySize = 1 << 20

    /// One datagram: its head, and a body of `Content-Length` bytes (RFC 3261 section 18.3: bytes past it
    /// are ignored) or, without a Content-Length, the rest of the datagram.
    static func parse(datagram bytes: [UInt8]) throws(SimSIPParseError) -> SimSIPMessage {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == 13 || bytes[start] == 10 { start += 1 }
        guard let (headEnd, bodyStart) = Self.endOfHead(in: bytes, from: start) else {
            throw SimSIPParseError("no empty line ends the header fields")
        }
        var message = try Self.parseHead(bytes[start..<headEnd])
        let available = bytes.count - bodyStart
        if let length = try Self.contentLength(of: message) {
            guard length <= available else { throw SimSIPParseError("Content-Length \(length) exceeds the \(available) bytes sent") }
            message.body = Array(bytes[bodyStart..<(bodyStart + length)])
        } else {
            message.body = Array(bytes[bodyStart...])
        }
        return message
    }

    /// Where the head ends (the index of its blank line) and where the body starts, if the head is
    /// complete: CRLFCRLF, or LFLF from a sloppy sender.
    static func endOfHead(in bytes: [UInt8], from start: Int) -> (headEnd: Int, bodyStart: Int)? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 10 {
                if bytes[index + 1] == 10 { return (index, index + 2) }
                if bytes[index + 1] == 13, index + 2 < bytes.count, bytes[index + 2] == 10 { return (index, index + 3) }
            }
            index += 1
        }
        return nil
    }

    /// The start line and header fields; the body is left empty.
    static func parseHead(_ head: ArraySlice<UInt8>) throws(SimSIPParseError) -> SimSIPMessage {
        guard head.count <= Self.maximumHeadSize else { throw SimSIPParseError("the head exceeds \(Self.maximumHeadSize) bytes") }
        // Split as bytes: in a Swift String, CRLF is one Character and would never match "\n".
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            Substring(String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self))
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let first = lines.first, !first.isEmpty else { throw SimSIPParseError("empty message") }
        let startLine = try Self.parseStartLine(first)

        // Folding (section 7.3.1): a line that starts with a space or tab continues the field before it.
        var joined: [String] = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                guard !joined.isEmpty else { throw SimSIPParseError("a continuation line before any header field") }
                joined[joined.count - 1] += " " + SimSIPText.trimmed(line)
            } else {
                joined.append(String(line))
            }
        }
        var fields: [SimSIPField] = []
        for line in joined {
            guard let colon = line.firstIndex(of: ":") else { throw SimSIPParseError("header line without a colon: \(line.prefix(40))") }
            let name = SimSIPText.trimmed(line[..<colon])
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw SimSIPParseError("bad header name '\(name.prefix(40))'")
            }
            fields.append(SimSIPField(name, SimSIPText.trimmed(line[line.index(after: colon)...])))
        }
        return SimSIPMessage(startLine, fields: fields)
    }

    /// `SIP/2.0 200 OK`, or `METHOD Request-URI SIP/2.0` (section 7.1 and 7.2).
    private static func parseStartLine(_ line: Substring) throws(SimSIPParseError) -> SimSIPMessage.StartLine {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        if line.hasPrefix("SIP/") {
            guard parts.count >= 2, parts[0] == "SIP/2.0" else { throw SimSIPParseError("not SIP/2.0: \(line.prefix(40))") }
            guard parts[1].count == 3, let code = Int(parts[1]), (100...699).contains(code) else {
                throw SimSIPParseError("bad status code '\(parts[1])'")
            }
            return .status(code: code, reason: parts.count == 3 ? String(parts[2]) : "")
        }
        guard parts.count == 3, parts[2] == "SIP/2.0", !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "." || $0 == "_" || $0.isNumber })
        else {
            throw SimSIPParseError("bad request line: \(line.prefix(60))")
        }
        return .request(method: String(parts[0]), uri: String(parts[1]))
    }

    /// The Content-Length, if the message has one; two different values are an error.
    static func contentLength(of message: SimSIPMessage) throws(SimSIPParseError) -> Int? {
        let values = Set(message.fields.filter { $0.name == "Content-Length" }.map(\.value))
        guard let value = values.first else { return nil }
        guard values.count == 1 else { throw SimSIPParseError("conflicting Content-Length fields") }
        guard let length = Int(value), length >= 0 else { throw SimSIPParseError("bad Content-Length '\(value)'") }
        guard length <= Self.maximumBodySize else { throw SimSIPParseError("Content-Length \(length) exceeds \(Self.maximumBodySize)") }
        return length
    }
}
