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
            limits = try GMSChatFileLimits(reply: try self.answer(try await self.send(limitsOperation), of: limitsOperation))
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
        _ = try self.answer(try await self.send(upload), of: upload)
        return .done
    }

    var noChat: ChannelError {
        ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
    }

    /// POSTs `operation`; a 2xx answer, or the failure naming the operation and what GMS said.
    func send(_ operation: GMSChatFileOperation, maximumResponseSize: Int = 4 << 20) async throws(ChannelError) -> NetworkResponse {
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.baseURL + operation.path,
            headers: [NetworkHeader("Content-Type", operation.contentType)],
            body: operation.body,
            timeout: self.configuration.machine.networkDelay * 3,
            maximumResponseSize: maximumResponseSize
        )
        let response: NetworkResponse
        do {
            response = try await self.host.network.send(request)
        } catch {
            if error.kind == .tooLarge {
                throw ChannelError(
                    .invalidArgument,
                    "\(self.prefix): \(operation.what) from \(self.serverDescription) brought more than \(maximumResponseSize) bytes, more than attendant takes"
                )
            }
            throw ChannelError(.transient, "\(self.prefix): \(operation.what) at \(self.serverDescription) failed: \(error.message)")
        }
        guard (200..<300).contains(response.status) else {
            let reason = (try? GMSChatV1Form.answer(status: response.status, body: response.body)).flatMap { result -> String? in
                if case .failure(let refusal) = result { return refusal.reason }
                return nil
            }
            throw ChannelError(
                (500..<600).contains(response.status) ? .transient : .server,
                "\(self.prefix): \(self.serverDescription) refused \(operation.what): \(reason ?? "HTTP \(response.status)")"
            )
        }
        return response
    }

    /// A JSON answer whose `statusCode` is 0 (or absent), or the failure with GMS's `errors`.
    func answer(_ response: NetworkResponse, of operation: GMSChatFileOperation) throws(ChannelError) -> [String: JSONValue] {
        guard case .success(let object) = GMSChatV1Form.answer(status: response.status, body: response.body) else {
            throw ChannelError(.server, "\(self.prefix): \(self.serverDescription) answered \(operation.what) with something that is not a GMS reply")
        }
        let reply = try? GMSChatV2Reply(decoding: .object(object))
        if let reply, reply.statusCode != 0 {
            let reason = reply.errors.isEmpty ? "status \(reply.statusCode)" : reply.errors.joined(separator: "; ")
            throw ChannelError(.server, "\(self.prefix): \(self.serverDescription) refused \(operation.what): \(reason)")
        }
        return object
    }
}
