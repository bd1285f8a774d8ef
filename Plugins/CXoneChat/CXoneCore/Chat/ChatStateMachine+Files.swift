// Files a message carries, and what files the channel takes: the mobile SDK's ContentDescriptor upload
// (nice-cxone-mobile-sdk-ios `Services/ChatThreadService.swift`, `ContentDescriptor.httpBody(fileRestrictions:)`)
// and `FileRestrictionsDTO`.
extension ChatStateMachine {
    /// A file a message carries: where the gateway keeps it (an upload's `fileUrl`, or the URL an agent's
    /// message gave), its name and type.
    package struct SentFile: Sendable, Hashable, Codable {
        package var url: String
        package var name: String
        package var mimeType: String

        package init(url: String, name: String, mimeType: String) {
            self.url = url
            self.name = name
            self.mimeType = mimeType
        }
    }

    /// What files a message may carry: the channel configuration's `settings.fileRestrictions`.
    package struct FileRestrictions: Sendable, Hashable {
        /// `isAttachmentsEnabled`.
        package var isEnabled: Bool
        /// `allowedFileSize`, in megabytes of 1024 × 1024 bytes, as the SDK counts it.
        package var maximumMegabytes: Int
        /// `allowedFileTypes[].mimeType`; `image/*` stands for every image type.
        package var mimeTypes: [String]

        package init(isEnabled: Bool, maximumMegabytes: Int, mimeTypes: [String]) {
            self.isEnabled = isEnabled
            self.maximumMegabytes = maximumMegabytes
            self.mimeTypes = mimeTypes
        }

        /// Why the channel would not take a file named `name` of `mimeType` and `size` bytes, naming what
        /// it takes; nil if it would. As the SDK checks before uploading: the size first, then the type,
        /// which must be one of the allowed types or fall under one of their wildcards.
        package func refusal(name: String, mimeType: String, size: Int) -> String? {
            guard self.isEnabled else { return "the channel does not take attachments" }
            if size > self.maximumMegabytes * 1024 * 1024 {
                return "\(name) has \(size) bytes; the channel takes files of at most \(self.maximumMegabytes) MB"
            }
            let type = Self.bare(mimeType)
            let allowed = self.mimeTypes.map(Self.bare)
            let matches = allowed.contains { pattern in
                pattern == type || pattern == "*/*"
                    || (pattern.hasSuffix("/*") && type.hasPrefix(pattern.dropLast()))
            }
            guard matches else {
                let taken = allowed.isEmpty ? "no file types" : allowed.joined(separator: ", ")
                return "\(name) is of type \(type); the channel takes \(taken)"
            }
            return nil
        }

        /// `image/PNG; name=x` as `image/png`.
        static func bare(_ mimeType: String) -> String {
            // A type has no spaces of its own.
            String((mimeType.split(separator: ";").first ?? "").filter { $0 != " " && $0 != "\t" }).lowercased()
        }
    }
}
