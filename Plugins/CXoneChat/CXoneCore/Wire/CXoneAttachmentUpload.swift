import FoundationEssentials

/// `POST {chat}/1.0/brand/{brandId}/channel/{channelId}/attachment`: a file for a message, as the mobile SDK
/// uploads it (`ContentDescriptor.httpBody(fileRestrictions:)` in nice-cxone-mobile-sdk-ios
/// `Services/ChatThreadService.swift`): `{"content": base64, "fileName", "mimeType"}`. The answer is
/// ``CXoneAttachmentUploaded``, or, still with a 2xx status, the channel's restrictions when it refused the
/// file (``CXoneAttachmentRefused``).
package struct CXoneAttachmentUpload: CXoneRESTBody {
    package static var subject: String { "attachment upload" }

    /// The file's bytes, base64.
    package var content: String
    package var fileName: String
    package var mimeType: String

    package init(bytes: [UInt8], fileName: String, mimeType: String) {
        self.content = Data(bytes).base64EncodedString()
        self.fileName = fileName
        self.mimeType = mimeType
    }

    /// The bytes of ``content``; nil when it is not base64.
    package var bytes: [UInt8]? { Data(base64Encoded: self.content).map { Array($0) } }
}

/// `{"fileUrl"}`: where the gateway keeps an uploaded file (the SDK's AttachmentUploadSuccessResponseDTO).
package struct CXoneAttachmentUploaded: CXoneRESTBody {
    package static var subject: String { "attachment upload answer" }
    package var fileUrl: String

    package init(fileUrl: String) { self.fileUrl = fileUrl }
}

/// `{"allowedFileSize": "10", "allowedFileTypes": [{"mimeType", "description"}], "isAttachmentsEnabled"}`:
/// the upload was refused, and these are what the channel takes (the SDK's AttachmentUploadFailResponseDTO,
/// which it reads as a size refusal when `allowedFileSize` is below what the channel configuration said,
/// else as a type refusal).
package struct CXoneAttachmentRefused: CXoneRESTBody {
    package static var subject: String { "attachment refusal" }
    package var restrictions: CXoneChannelConfiguration.FileRestrictions

    package init(_ restrictions: CXoneChannelConfiguration.FileRestrictions) { self.restrictions = restrictions }

    package init(from decoder: any Decoder) throws {
        self.restrictions = try CXoneChannelConfiguration.FileRestrictions(from: decoder)
    }

    package func encode(to encoder: any Encoder) throws {
        try self.restrictions.encode(to: encoder)
    }
}
