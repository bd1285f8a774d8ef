#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// The answer to `configureSession` (class `SessionResponse`). SDK `shyrka/receive/SessionResponse.kt`.
package struct GenesysSessionResponse: Sendable, Hashable {
    /// SDK `MAX_CUSTOM_DATA_BYTES_UNSET`.
    package static let customDataBytesUnset = -1

    package var connected: Bool
    package var newSession: Bool
    /// The conversation was disconnected: messages cannot be sent until a new chat starts
    /// (`closeSession`, then `configureSession` with `startNew`).
    package var readOnly: Bool
    package var maxCustomDataBytes: Int
    /// `allowedMedia.inbound.fileTypes[].type` (MIME types, `*/*` for any).
    package var allowedFileTypes: [String]
    /// `allowedMedia.inbound.maxFileSizeKB`.
    package var maxFileSizeKB: Int?
    /// Extensions with their dot (".exe").
    package var blockedExtensions: [String]
    package var clearedExistingSession: Bool
    /// Seconds of inactivity before the session expires.
    package var durationSeconds: Int?
    /// Epoch seconds when it expires.
    package var expirationDate: Int?

    package init(
        connected: Bool,
        newSession: Bool = false,
        readOnly: Bool = false,
        maxCustomDataBytes: Int = Self.customDataBytesUnset,
        allowedFileTypes: [String] = [],
        maxFileSizeKB: Int? = nil,
        blockedExtensions: [String] = [],
        clearedExistingSession: Bool = false,
        durationSeconds: Int? = nil,
        expirationDate: Int? = nil
    ) {
        self.connected = connected
        self.newSession = newSession
        self.readOnly = readOnly
        self.maxCustomDataBytes = maxCustomDataBytes
        self.allowedFileTypes = allowedFileTypes
        self.maxFileSizeKB = maxFileSizeKB
        self.blockedExtensions = blockedExtensions
        self.clearedExistingSession = clearedExistingSession
        self.durationSeconds = durationSeconds
        self.expirationDate = expirationDate
    }

    init(_ fields: GenesysFields) throws(GenesysWireError) {
        let inbound = try fields.optionalObject("allowedMedia")?.optionalObject("inbound")
        var types: [String] = []
        for (value, path) in try inbound?.array("fileTypes") ?? [] {
            types.append(try GenesysFields(value, path: path).string("type"))
        }
        self.init(
            connected: try fields.bool("connected"),
            newSession: try fields.optionalBool("newSession") ?? false,
            readOnly: try fields.optionalBool("readOnly") ?? false,
            maxCustomDataBytes: try fields.optionalInteger("maxCustomDataBytes") ?? Self.customDataBytesUnset,
            allowedFileTypes: types,
            maxFileSizeKB: try inbound?.optionalInteger("maxFileSizeKB"),
            blockedExtensions: try fields.strings("blockedExtensions"),
            clearedExistingSession: try fields.optionalBool("clearedExistingSession") ?? false,
            durationSeconds: try fields.optionalInteger("durationSeconds"),
            expirationDate: try fields.optionalInteger("expirationDate")
        )
    }
}
