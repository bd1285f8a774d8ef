import AttendantPluginAPI
import AttendantPluginKit
import GMSCore

// Files, chat API v2's HTTP file management beside the CometD chat (GMSCore's ``GMSChatFileOperation``):
// an agent's file is fetched with `fileDownload`, and a file is sent with `fileUpload` once
// `fileGetLimits` said GMS takes its type and size.
extension GMSChatChannel {
    /// The most a download may bring: what the control API hands on (64 MiB).
    static let downloadLimit = 64 << 20

    /// `download-attachment`: the file's bytes, under the name and type its row gave.
    func download(messageID: String, attachmentID: String) async throws -> ChannelReply {
        let found = self.driver.withSession { session in
            Result { () throws(ChannelError) in try session.attachment(messageID: messageID, attachmentID: attachmentID) }
        }
        guard let (attachment, keys) = try found?.get() else { throw self.noChat }
        if let size = attachment.size, size > Self.downloadLimit {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): \(attachment.name) has \(size) bytes, more than the \(Self.downloadLimit) bytes (64 MiB) attendant downloads"
            )
        }
        guard let operation = GMSChatFileOperation.download(service: self.configuration.service, keys: keys, fileID: attachment.id) else {
            throw self.noChat
        }
        let response = try await self.send(operation, maximumResponseSize: Self.downloadLimit)
        let type = response.header("Content-Type").flatMap { $0.hasPrefix("application/json") ? nil : $0 } ?? attachment.mimeType
        return .file(ChatFile(name: attachment.name, mimeType: type, bytes: response.body))
    }

    /// `send-file`: refused with what GMS takes when `fileGetLimits` says it would not take the file,
    /// else uploaded; the chat's `FileUploaded` row shows it.
    func sendFile(_ file: ChatFile) async throws -> ChannelReply {
        try await self.startChat()
        guard let keys = self.driver.withSession({ $0.phase == .active ? $0.keys : nil }) ?? nil,
            let limitsOperation = GMSChatFileOperation.limits(service: self.configuration.service, keys: keys)
        else { throw self.noChat }
        let limits: GMSChatFileLimits
        do {
            limits = try GMSChatFileLimits(reply: try self.http.answer(try await self.send(limitsOperation), of: limitsOperation))
        } catch let error as GMSDecodeError {
            throw ChannelError(.server, "\(self.prefix): \(self.serverDescription) answered fileGetLimits without limits: \(error)")
        }
        if let refusal = limits.refusal(name: file.name, size: file.bytes.count) {
            throw ChannelError(.invalidArgument, "\(self.prefix): \(self.serverDescription) does not take this file: \(refusal)")
        }
        let boundary = "attendant-" + Self.newThreadID()
        guard
            let upload = GMSChatFileOperation.upload(
                service: self.configuration.service,
                keys: keys,
                name: file.name,
                mimeType: file.mimeType,
                bytes: file.bytes,
                boundary: boundary
            )
        else { throw self.noChat }
        _ = try self.http.answer(try await self.send(upload), of: upload)
        return .done
    }

    var noChat: ChannelError {
        ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
    }

    /// POSTs `operation`: a 2xx answer, or the failure naming the operation and what GMS said.
    func send(_ operation: GMSChatFileOperation, maximumResponseSize limit: Int = 4 << 20) async throws(ChannelError) -> NetworkResponse {
        try self.http.response(await self.send(self.http.request(operation, maximumResponseSize: limit)), of: operation, limit: limit).get()
    }
}
