import Foundation
import Synchronization

/// Attachments: onAttachment answered with a presigned upload URL on the simulator (`PUT /uploads/{id}`),
/// UploadSuccessEvent once the file is there, getAttachment's fresh download URL, deleteAttachment, and
/// the agent's files (`GET /downloads/{id}`). Both URLs carry an `X-Amz-Signature` as presigned S3 URLs do;
/// a download URL also carries `X-Amz-Date` and `X-Amz-Expires` (signed with it) and is refused with S3's
/// 403 AccessDenied "Request has expired" once they are past.
extension GenesysMessagingServer {
    /// `onAttachment` (OnAttachmentRequest.kt). A file the deployment's profile does not take is refused
    /// with 4001 FileTypeInvalid, 4002 FileSizeInvalid or 4004 FileNameInvalid (ErrorCode.kt): as a
    /// GenerateUrlError message when the client asked `errorsAsJson` (as the SDK does), else as a string
    /// error. Otherwise PresignedUrlResponse `{attachmentId, headers, url, fileName, fileType}`: the
    /// headers (`x-amz-tagging`, as in the SDK's fixture) must come with the PUT.
    func presign(
        _ frame: SimGenesysClientFrame,
        attachmentId: String,
        fileName: String,
        fileType: String,
        fileSize: Int?,
        errorsAsJson: Bool,
        on connection: GenesysMessagingConnection
    ) throws(SimGenesysWireError) {
        _ = try self.session(for: frame, on: connection)
        if let refusal = self.refusal(fileName: fileName, fileType: fileType, size: fileSize) {
            guard errorsAsJson else { throw refusal }
            let body: GMSJSON = [
                "attachmentId": .string(attachmentId), "errorCode": .int(refusal.code), "errorMessage": .string(refusal.description),
            ]
            connection.send(.message("GenerateUrlError", body, tracingId: frame.tracingId))
            return
        }
        let upload = Upload(
            id: attachmentId,
            token: frame.token,
            fileName: fileName,
            fileType: fileType,
            declaredSize: fileSize,
            tagging: "organizationId=simulator&originPlatform=PureCloud&role=webmessaging&attachmentId=\(attachmentId)"
        )
        self.state.withLock { $0.uploads[attachmentId] = upload }
        let body: GMSJSON = [
            "attachmentId": .string(attachmentId),
            "headers": ["x-amz-tagging": .string(upload.tagging)],
            "url": .string(self.uploadURL(attachmentId)),
            "fileName": .string(fileName),
            "fileType": .string(fileType),
        ]
        connection.send(.response("PresignedUrlResponse", body, tracingId: frame.tracingId))
    }

    /// Why the deployment's file profile refuses a file, if it does.
    func refusal(fileName: String, fileType: String, size: Int?) -> SimGenesysWireError? {
        if fileName.isEmpty || fileName.contains("/") { return SimGenesysWireError(4004, "File name \(fileName) is not valid") }
        let lowered = fileName.lowercased()
        if self.settings.blockedExtensions.contains(where: { lowered.hasSuffix($0.lowercased()) }) {
            return SimGenesysWireError(4001, "File type of \(fileName) is blocked")
        }
        if !self.settings.fileTypes.contains("*/*"), !self.settings.fileTypes.contains(fileType.lowercased()) {
            return SimGenesysWireError(4001, "File type \(fileType) is not allowed")
        }
        if let size, size > self.settings.maxFileSizeKB * 1024 {
            return SimGenesysWireError(4002, "File size \(size) bytes is over \(self.settings.maxFileSizeKB) KB")
        }
        return nil
    }

    /// `getAttachment`: a fresh download URL for an uploaded file or an agent's file of the session's
    /// conversation, as PresignedUrlResponse with no headers and a fileSize (what the SDK reads as a
    /// refreshed URL: `PresignedUrlResponse.isRefreshUrl`); an unknown one is 4009 AttachmentNotFound.
    func refreshAttachment(
        _ frame: SimGenesysClientFrame,
        attachmentId: String,
        on connection: GenesysMessagingConnection
    ) throws(SimGenesysWireError) {
        _ = try self.session(for: frame, on: connection)
        let file: (bytes: [UInt8], name: String, type: String)? = self.state.withLock { state in
            if let agentFile = state.agentFiles[attachmentId], agentFile.token == frame.token {
                return (agentFile.bytes, agentFile.name, agentFile.type)
            }
            guard let upload = state.uploads[attachmentId], upload.token == frame.token, let bytes = upload.bytes, !upload.deleted else { return nil }
            return (bytes, upload.fileName, upload.fileType)
        }
        guard let file else { throw SimGenesysWireError(4009, "Attachment \(attachmentId) was not found") }
        let body: GMSJSON = [
            "attachmentId": .string(attachmentId),
            "headers": [:],
            "url": .string(self.downloadURL(attachmentId)),
            "fileName": .string(file.name),
            "fileSize": .int(file.bytes.count),
            "fileType": .string(file.type),
        ]
        connection.send(.response("PresignedUrlResponse", body, tracingId: frame.tracingId))
    }

    /// `deleteAttachment`: AttachmentDeletedResponse `{attachmentId}` (`Response.attachmentDeleted`).
    func deleteAttachment(_ frame: SimGenesysClientFrame, attachmentId: String, on connection: GenesysMessagingConnection) throws(SimGenesysWireError)
    {
        _ = try self.session(for: frame, on: connection)
        let found = self.state.withLock { state in
            guard state.uploads[attachmentId]?.token == frame.token else { return false }
            state.uploads[attachmentId]?.deleted = true
            return true
        }
        guard found else { throw SimGenesysWireError(4009, "Attachment \(attachmentId) was not found") }
        connection.send(.message("AttachmentDeletedResponse", ["attachmentId": .string(attachmentId)], tracingId: frame.tracingId))
    }

    /// `PUT /uploads/{id}?X-Amz-Signature=…` with the presigned headers: stores the file and pushes
    /// UploadSuccessEvent `{attachmentId, downloadUrl, timestamp}` (or, with the upload-failure fault,
    /// UploadFailureEvent `{attachmentId, errorCode: 4003, errorMessage, timestamp}`) to the session's
    /// sockets. A wrong signature or header is S3's 403, a body over the profile's size 400.
    func uploadReply(_ request: HTTPRouteRequest, id: String) -> HTTPReply {
        guard let upload = self.state.withLock({ $0.uploads[id] }), !upload.deleted else { return .error(404, "NoSuchUpload: \(id)") }
        guard request.query["X-Amz-Signature"] == Self.signature(id, self.signingKey),
            request.headers["x-amz-tagging"] == upload.tagging
        else {
            return .error(403, "SignatureDoesNotMatch: the presigned URL's signature or its x-amz-tagging header is wrong")
        }
        guard request.body.count <= self.settings.maxFileSizeKB * 1024 else { return .error(400, "EntityTooLarge") }
        let failed = self.takeUploadFailure()
        self.state.withLock { state in
            if !failed { state.uploads[id]?.bytes = request.body }
        }
        let timestamp = GMSJSON.string(SimGenesysTime.format(Date(timeIntervalSince1970: self.now())))
        let frame: SimGenesysServerFrame =
            failed
            ? .message(
                "UploadFailureEvent",
                [
                    "attachmentId": .string(id), "errorCode": 4003, "errorMessage": "The file failed the content check (injected fault)",
                    "timestamp": timestamp,
                ]
            )
            : .message("UploadSuccessEvent", ["attachmentId": .string(id), "downloadUrl": .string(self.downloadURL(id)), "timestamp": timestamp])
        for socket in self.connections(of: upload.token) { socket.send(frame) }
        return HTTPReply(status: 200, body: "")
    }

    /// `GET /downloads/{id}?X-Amz-Date=…&X-Amz-Expires=…&X-Amz-Signature=…`: a customer's upload or an
    /// agent's file, while the URL is valid.
    func downloadReply(_ request: HTTPRouteRequest, id: String) -> HTTPReply {
        let date = request.query["X-Amz-Date"] ?? ""
        let expires = request.query["X-Amz-Expires"] ?? ""
        guard request.query["X-Amz-Signature"] == Self.signature("\(id)\n\(date)\n\(expires)", self.signingKey),
            let signed = Self.amzDate.date(from: date), let lifetime = Int(expires)
        else {
            return .error(403, "SignatureDoesNotMatch: the download URL's signature is missing or wrong")
        }
        guard Double(self.nowSeconds) < signed.timeIntervalSince1970 + Double(lifetime) else {
            return .error(403, "AccessDenied: Request has expired")
        }
        let bytes: [UInt8]? = self.state.withLock { state in state.agentFiles[id]?.bytes ?? state.uploads[id].flatMap { $0.deleted ? nil : $0.bytes }
        }
        guard let bytes else { return .error(404, "NoSuchKey: \(id)") }
        return HTTPReply(status: 200, body: "", bytes: bytes)
    }

    /// The agent sends a file: an Outbound Text message with `text` whose content is one Attachment
    /// (`Response.onMessageWithAttachment`: `{"contentType": "Attachment", "attachment": {"id", "filename",
    /// "mediaType", "fileSize", "mime", "url"}}`).
    @discardableResult
    package func agentSendsFile(
        session: String? = nil,
        name: String,
        mimeType: String,
        bytes: [UInt8],
        text: String = "",
        signedSecondsAgo: Int = 0
    ) throws(SimulatorError)
        -> String
    {
        let token = try self.sessionToken(session)
        let id = SimGenesysTime.id()
        self.state.withLock { $0.agentFiles[id] = (bytes, name, mimeType, token) }
        var message = self.outbound(type: "Text", text: text, originatingEntity: "Human")
        let url = self.downloadURL(id, signedAt: self.nowSeconds - signedSecondsAgo)
        message.content = [self.attachmentContent(id: id, name: name, type: mimeType, size: bytes.count, url: url)]
        return try self.deliver(message, to: token).id
    }

    func attachmentContent(id: String, name: String, type: String, size: Int, url: String) -> GMSJSON {
        let mediaType =
            switch type.split(separator: "/").first.map(String.init) {
            case "image": "Image"
            case "video": "Video"
            case "audio": "Audio"
            default: "File"
            }
        return [
            "contentType": "Attachment",
            "attachment": [
                "id": .string(id), "url": .string(url), "filename": .string(name), "fileSize": .int(size), "mediaType": .string(mediaType),
                "mime": .string(type),
            ],
        ]
    }

    /// The customer's uploads that arrived, in no particular order: name, type and size.
    package var uploads: [(name: String, type: String, size: Int)] {
        self.state.withLock { state in
            state.uploads.values.compactMap { upload in upload.bytes.map { (upload.fileName, upload.fileType, $0.count) } }.sorted {
                $0.name < $1.name
            }
        }
    }

    func uploadURL(_ id: String) -> String { "\(self.httpBase())/uploads/\(id)?X-Amz-Signature=\(Self.signature(id, self.signingKey))" }

    /// A download URL signed at `signedAt` (now by default), valid for the settings' lifetime.
    func downloadURL(_ id: String, signedAt: Int? = nil) -> String {
        let date = Self.amzDate.string(from: Date(timeIntervalSince1970: Double(signedAt ?? self.nowSeconds)))
        let expires = String(self.settings.downloadURLLifetimeSeconds)
        let signature = Self.signature("\(id)\n\(date)\n\(expires)", self.signingKey)
        return "\(self.httpBase())/downloads/\(id)?X-Amz-Date=\(date)&X-Amz-Expires=\(expires)&X-Amz-Signature=\(signature)"
    }

    /// `X-Amz-Date`'s form: ISO 8601 basic, UTC (`20220822T192426Z`).
    static var amzDate: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        return formatter
    }
}
