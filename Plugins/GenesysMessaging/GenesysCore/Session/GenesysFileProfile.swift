/// What files the deployment takes from the customer (SDK `core/FileAttachmentProfile.kt`), from the
/// session's `allowedMedia` when the deployment's `fileUpload` has `enableAttachments` (either value),
/// else from `fileUpload.modes` (SDK `MessagingClientImpl.createFileAttachmentProfile`,
/// `MessageExtension.toFileAttachmentProfile`).
package struct GenesysFileProfile: Sendable, Hashable {
    /// SDK `WILD_CARD`.
    static let wildcard = "*/*"

    package var enabled: Bool
    /// MIME types, without the wildcard.
    package var allowedFileTypes: [String]
    /// Extensions with their dot.
    package var blockedFileTypes: [String]
    package var maxFileSizeKB: Int
    package var hasWildcard: Bool

    package init(
        enabled: Bool = false,
        allowedFileTypes: [String] = [],
        blockedFileTypes: [String] = [],
        maxFileSizeKB: Int = 0,
        hasWildcard: Bool = false
    ) {
        self.enabled = enabled
        self.allowedFileTypes = allowedFileTypes
        self.blockedFileTypes = blockedFileTypes
        self.maxFileSizeKB = maxFileSizeKB
        self.hasWildcard = hasWildcard
    }

    package init(session: GenesysSessionResponse, fileUpload: GenesysDeploymentConfig.FileUpload?) {
        if fileUpload?.enableAttachments != nil {
            let maximum = session.maxFileSizeKB ?? 0
            self.init(
                enabled: !session.allowedFileTypes.isEmpty && maximum > 0,
                allowedFileTypes: session.allowedFileTypes.filter { $0 != Self.wildcard },
                blockedFileTypes: session.blockedExtensions,
                maxFileSizeKB: maximum,
                hasWildcard: session.allowedFileTypes.contains(Self.wildcard)
            )
        } else if let fileUpload {
            let types = fileUpload.modes.flatMap(\.fileTypes)
            self.init(
                enabled: !types.isEmpty,
                allowedFileTypes: types.filter { $0 != Self.wildcard },
                maxFileSizeKB: fileUpload.modes.first?.maxFileSizeKB ?? 0,
                hasWildcard: types.contains(Self.wildcard)
            )
        } else {
            self.init()
        }
    }

    /// Why the file cannot be sent, or nil. The SDK's checks (`AttachmentHandlerImpl.validate`): the
    /// profile enabled, at least one byte, `size / 1000` at most `maxFileSizeKB`, the extension not
    /// blocked. The SDK leaves the type to the server (4001 FileTypeInvalid); it is checked here too, so
    /// a refusal comes before an upload (decided).
    package func refusal(fileName: String, mimeType: String, byteCount: Int) -> String? {
        guard self.enabled else { return "the deployment takes no files" }
        guard byteCount > 0 else { return "\(fileName) is empty" }
        if byteCount / 1000 > self.maxFileSizeKB {
            return "\(fileName) is \(byteCount) bytes; the deployment takes files up to \(self.maxFileSizeKB) KB"
        }
        if let dot = fileName.lastIndex(of: "."), self.blockedFileTypes.contains(where: { $0.lowercased() == fileName[dot...].lowercased() }) {
            return "\(fileName): the deployment blocks \(fileName[dot...]) files"
        }
        if !self.hasWildcard, !self.allowedFileTypes.contains(where: { $0.lowercased() == mimeType.lowercased() }) {
            return "\(fileName) is of type \(mimeType); the deployment takes \(self.allowedFileTypes.joined(separator: ", "))"
        }
        return nil
    }
}
