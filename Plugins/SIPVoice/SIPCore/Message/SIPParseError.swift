/// SIP input that could not be read: what was wrong, and where.
///
/// Every parser in SIPCore reports failures with this one type (as a typed `throws`), so a caller can log
/// it, answer `400 Bad Request` with ``description`` as the reason, or close a stream whose framing is lost.
/// The text never contains more than a short excerpt of the input.
package struct SIPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    package var code: Code
    /// What was expected or found, in words.
    package var what: String
    /// Where in the message.
    package var location: Location

    package init(_ code: Code, _ what: String, at location: Location = Location()) {
        self.code = code
        self.what = what
        self.location = location
    }

    package var description: String {
        let place = self.location.description
        return place.isEmpty ? "SIP \(self.code): \(self.what)" : "SIP \(self.code) (\(place)): \(self.what)"
    }

    /// The class of a parse failure.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// The request line or status line is not `METHOD URI SIP/2.0` or `SIP/2.0 CODE REASON`.
        package static let startLine = Code("start-line")
        /// A header line is not `Name: value`, or a line ends in a bare CR or LF.
        package static let headerSyntax = Code("header-syntax")
        /// A header's value does not have the form its header requires.
        package static let headerValue = Code("header-value")
        /// A header the operation needs is absent.
        package static let missingHeader = Code("missing-header")
        /// A SIP URI (or another URI) is malformed.
        package static let uri = Code("uri")
        /// Bytes that are not UTF-8, or control characters where text belongs.
        package static let encoding = Code("encoding")
        /// `Content-Length` is missing on a stream, not a number, or longer than the datagram.
        package static let contentLength = Code("content-length")
        /// A line is longer than ``SIPParserLimits/maxLineLength``.
        package static let lineTooLong = Code("line-too-long")
        /// More header lines than ``SIPParserLimits/maxHeaderCount``.
        package static let tooManyHeaders = Code("too-many-headers")
        /// The head (start line and headers) is larger than ``SIPParserLimits/maxHeadSize``.
        package static let headTooLarge = Code("head-too-large")
        /// The body is larger than ``SIPParserLimits/maxBodySize``.
        package static let bodyTooLarge = Code("body-too-large")
        /// The input ended inside a message.
        package static let truncated = Code("truncated")
    }

    /// A place in a message; every part is optional.
    package struct Location: Sendable, Hashable, CustomStringConvertible {
        /// The header whose value is at fault.
        package var header: String?
        /// The line of the message head, counting the start line as 1.
        package var line: Int?
        /// The byte offset from the start of the message.
        package var offset: Int?

        package init(header: String? = nil, line: Int? = nil, offset: Int? = nil) {
            self.header = header
            self.line = line
            self.offset = offset
        }

        package var description: String {
            var parts: [String] = []
            if let header { parts.append("header \(header)") }
            if let line { parts.append("line \(line)") }
            if let offset { parts.append("byte \(offset)") }
            return parts.joined(separator: ", ")
        }
    }
}

extension SIPParseError {
    /// The same error, with the header it concerns filled in where the inner parser did not know it.
    func inHeader(_ name: String) -> SIPParseError {
        var copy = self
        if copy.location.header == nil { copy.location.header = name }
        return copy
    }
}

/// Bounds that keep a parser's memory and work proportional to what a sane peer sends.
package struct SIPParserLimits: Sendable, Hashable {
    /// The longest line of the head, folded continuation lines included (bytes).
    package var maxLineLength: Int = 8192
    /// The most header lines in one message.
    package var maxHeaderCount: Int = 128
    /// The largest head: start line, headers and the blank line (bytes).
    package var maxHeadSize: Int = 32 * 1024
    /// The largest body (bytes). SDP offers are a few kilobytes.
    package var maxBodySize: Int = 64 * 1024

    package init() {}

    package init(maxLineLength: Int = 8192, maxHeaderCount: Int = 128, maxHeadSize: Int = 32 * 1024, maxBodySize: Int = 64 * 1024) {
        self.maxLineLength = maxLineLength
        self.maxHeaderCount = maxHeaderCount
        self.maxHeadSize = maxHeadSize
        self.maxBodySize = maxBodySize
    }
}
