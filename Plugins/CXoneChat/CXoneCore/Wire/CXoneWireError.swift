/// CXone input that could not be read, or a value that could not be written: what, and where.
///
/// Every decoder in the wire layer reports failures with this one type (typed `throws`), so the plugin can
/// log it and keep the channel running, and the simulator can answer a client's bad frame. The message
/// names the frame's size, the field path and the event type, never a field's value (values may be tokens).
package struct CXoneWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    package var code: Code
    /// What failed and where, e.g. `frame 2 KiB: data.thread.idOnExternalPlatform is missing in MessageCreated`.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "CXone \(self.code): \(self.message)" }

    /// The class of a wire failure.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// The input is larger than ``CXoneWireLimits/maxFrameSize``.
        package static let frameTooLarge = Code("frame-too-large")
        /// Arrays and objects nest deeper than ``CXoneWireLimits/maxDepth``.
        package static let tooDeep = Code("too-deep")
        /// The input is not JSON (or not UTF-8), or is empty.
        package static let notJSON = Code("not-json")
        /// JSON of none of the shapes the wire knows (no `eventType`, `postback`, `error`, `message` or `action`).
        package static let unrecognized = Code("unrecognized")
        /// A field the frame's type requires is absent or null.
        package static let missingField = Code("missing-field")
        /// A field has the wrong JSON type (a number where a string belongs, ...).
        package static let wrongType = Code("wrong-type")
        /// A field has the right type but a value outside what it allows (a timestamp, a direction, a URL).
        package static let invalidValue = Code("invalid-value")
        /// A REST body that is the service's error answer, e.g. `{"error":{"errorCode":"SdkVersionNotSupported"}}`.
        package static let serviceError = Code("service-error")
        /// A value could not be encoded (a non-finite number in free-form JSON).
        package static let encoding = Code("encoding")
    }
}

/// Bounds checked before any decoding starts.
package struct CXoneWireLimits: Sendable, Hashable {
    /// The largest frame or body accepted, in bytes (default 1 MiB; the gateway itself sends at most
    /// 128 KB and moves larger events to S3, see ``CXoneWire/EventInS3``).
    package var maxFrameSize: Int
    /// The deepest nesting of arrays and objects accepted (default 64).
    package var maxDepth: Int

    package init(maxFrameSize: Int = 1 << 20, maxDepth: Int = 64) {
        self.maxFrameSize = maxFrameSize
        self.maxDepth = maxDepth
    }
}
