/// SIP input that could not be read: what was wrong, and where.
///
/// Every parser in SIPCore reports failures with this one type (as a typed `throws`), so a caller can log
/// it, answer `400 Bad Request` with ``description`` as the reason, or close a stream whose framing is lost.
/// The text never contains more than a short excerpt of the input.
public struct SIPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public var code: Code
    /// What was expected or found, in words.
    public var what: String
    /// Where in the message.
    public var location: Location

    public init(_ code: Code, _ what: String, at location: Location = Location()) {
        self.code = code
        self.what = what
        self.location = location
    }

    public var description: String {
        let place = self.location.description
        return place.isEmpty ? "SIP \(self.code): \(self.what)" : "SIP \(self.code) (\(place)): \(self.what)"
    }

    /// The class of a parse failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// The request line or status line is not `METHOD URI SIP/2.0` or `SIP/2.0 CODE REASON`.
        public static let startLine = Code("start-line")
        /// A header line is not `Name: value`, or a line ends in a bare CR or LF.
        public static let headerSyntax = Code("header-syntax")
        /// A header's value does not have the form its header requires.
        public static let headerValue = Code("header-value")
        /// A header the operation needs is absent.
        public static let missingHeader = Code("missing-header")
        /// A SIP URI (or another URI) is malformed.
        public static let uri = Code("uri")
        /// Bytes that are not UTF-8, or control characters where text belongs.
        public static let encoding = Code("encoding")
        /// `Content-Length` is missing on a stream, not a number, or longer than the datagram.
        public static let contentLength = Code("content-length")
        /// A line is longer than ``SIPParserLimits/maxLineLength``.
        public static let lineTooLong = Code("line-too-long")
        /// More header lines than ``SIPParserLimits/maxHeaderCount``.
        public static let tooManyHeaders = Code("too-many-headers")
        /// The head (start line and headers) is larger than ``SIPParserLimits/maxHeadSize``.
        public static let headTooLarge = Code("head-too-large")
        /// The body is larger than ``SIPParserLimits/maxBodySize``.
        public static let bodyTooLarge = Code("body-too-large")
        /// The input ended inside a message.
        public static let truncated = Code("truncated")
    }

    /// A place in a message; every part is optional.
    public struct Location: Sendable, Hashable, CustomStringConvertible {
        /// The header whose value is at fault.
        public var header: String?
        /// The line of the message head, counting the start line as 1.
        public var line: Int?
        /// The byte offset from the start of the message.
        public var offset: Int?

        public init(header: String? = nil, line: Int? = nil, offset: Int? = nil) {
            self.header = header
            self.line = line
            self.offset = offset
        }

        public var description: String {
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
public struct SIPParserLimits: Sendable, Hashable {
    /// The longest line of the head, folded continuation lines included (bytes).
    public var maxLineLength: Int = 8192
    /// The most header lines in one message.
    public var maxHeaderCount: Int = 128
    /// The largest head: start line, headers and the blank line (bytes).
    public var maxHeadSize: Int = 32 * 1024
    /// The largest body (bytes). SDP offers are a few kilobytes.
    public var maxBodySize: Int = 64 * 1024

    public init() {}

    public init(maxLineLength: Int = 8192, maxHeaderCount: Int = 128, maxHeadSize: Int = 32 * 1024, maxBodySize: Int = 64 * 1024) {
        self.maxLineLength = maxLineLength
        self.maxHeaderCount = maxHeaderCount
        self.maxHeadSize = maxHeadSize
        self.maxBodySize = maxBodySize
    }
}
