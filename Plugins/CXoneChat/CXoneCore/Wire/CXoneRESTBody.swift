/// A JSON body of CXone's REST endpoints: decoded by the plugin (or the simulator, for requests) with the
/// same limits and errors as the socket frames.
package protocol CXoneRESTBody: Codable, Sendable, Hashable {
    /// What the body is called in error messages, e.g. `channel configuration`.
    static var subject: String { get }
}

extension CXoneRESTBody {
    /// Decodes a body. A body that is the service's error answer (`{"error": {"errorCode": ...}}`) throws
    /// ``CXoneWireError/Code/serviceError`` naming the code.
    package static func decode(_ bytes: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) throws(CXoneWireError) -> Self {
        let subject = Self.subject
        do {
            return try CXoneWireCoding.decode(Self.self, from: bytes, limits: limits, subject: subject)
        } catch {
            if error.code == .missingField || error.code == .wrongType,
                let answer = try? CXoneWireCoding.decode(CXoneServiceErrorBody.self, from: bytes, limits: limits, subject: subject)
            {
                throw CXoneWireError(
                    .serviceError,
                    "\(subject) \(CXoneWireCoding.size(bytes.count)): the service answered \(CXoneWireCoding.label(answer.error.errorCode))"
                )
            }
            throw error
        }
    }

    /// The body's text.
    package func encoded() throws(CXoneWireError) -> [UInt8] {
        try CXoneWireCoding.encode(self, subject: Self.subject)
    }
}

/// `{"error": {"errorCode": "SdkVersionNotSupported", ...}}`: what the REST endpoints answer instead of a
/// body when they refuse (the simulator encodes it; decoders report it as a service error).
package struct CXoneServiceErrorBody: CXoneRESTBody {
    package static var subject: String { "service error" }
    package var error: Body

    package init(errorCode: String, errorMessage: String? = nil) {
        self.error = Body(errorCode: errorCode, errorMessage: errorMessage)
    }

    package struct Body: Sendable, Hashable, Codable {
        package var errorCode: String
        package var errorMessage: String?
    }
}
