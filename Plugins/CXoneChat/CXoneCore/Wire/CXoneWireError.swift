/// CXone input that could not be read, or a value that could not be written: what, and where.
///
/// Every decoder in the wire layer reports failures with this one type (typed `throws`), so the plugin can
/// log it and keep the channel running, and the simulator can answer a client's bad frame. The message
/// names the frame's size, the field path and the event type, never a field's value (values may be tokens).
public struct CXoneWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public var code: Code
    /// What failed and where, e.g. `frame 2 KiB: data.thread.idOnExternalPlatform is missing in MessageCreated`.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "CXone \(self.code): \(self.message)" }

    /// The class of a wire failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// The input is larger than ``CXoneWireLimits/maxFrameSize``.
        public static let frameTooLarge = Code("frame-too-large")
        /// Arrays and objects nest deeper than ``CXoneWireLimits/maxDepth``.
        public static let tooDeep = Code("too-deep")
        /// The input is not JSON (or not UTF-8), or is empty.
        public static let notJSON = Code("not-json")
        /// JSON of none of the shapes the wire knows (no `eventType`, `postback`, `error`, `message` or `action`).
        public static let unrecognized = Code("unrecognized")
        /// A field the frame's type requires is absent or null.
        public static let missingField = Code("missing-field")
        /// A field has the wrong JSON type (a number where a string belongs, ...).
        public static let wrongType = Code("wrong-type")
        /// A field has the right type but a value outside what it allows (a timestamp, a direction, a URL).
        public static let invalidValue = Code("invalid-value")
        /// A REST body that is the service's error answer, e.g. `{"error":{"errorCode":"SdkVersionNotSupported"}}`.
        public static let serviceError = Code("service-error")
        /// A value could not be encoded (a non-finite number in free-form JSON).
        public static let encoding = Code("encoding")
    }
}

/// Bounds checked before any decoding starts.
public struct CXoneWireLimits: Sendable, Hashable {
    /// The largest frame or body accepted, in bytes (default 1 MiB; the gateway itself sends at most
    /// 128 KB and moves larger events to S3, see ``CXoneWire/EventInS3``).
    public var maxFrameSize: Int
    /// The deepest nesting of arrays and objects accepted (default 64).
    public var maxDepth: Int

    public init(maxFrameSize: Int = 1 << 20, maxDepth: Int = 64) {
        self.maxFrameSize = maxFrameSize
        self.maxDepth = maxDepth
    }
}
