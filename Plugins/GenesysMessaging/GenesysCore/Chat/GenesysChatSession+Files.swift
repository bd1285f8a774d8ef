package import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

/// A file of ours on its way (SDK `AttachmentHandlerImpl`): the presigned URL asked for, the PUT, the
/// service's UploadSuccessEvent, then the message that carries it.
struct GenesysUpload: Sendable {
    enum Phase: Sendable, Hashable {
        case presigning
        case uploading
        case uploaded
    }

    var caller: UInt64
    var file: ChatFile
    var phase = Phase.presigning
}

// Files: those the agent sent, fetched by their presigned URL, and ours, uploaded as the SDK uploads one.
extension GenesysChatSession {
    /// What the deployment takes from us now (SDK `MessagingClientImpl.createFileAttachmentProfile`).
    package var fileProfile: GenesysFileProfile {
        guard case .configured(let live) = self.machine.state else { return GenesysFileProfile() }
        return GenesysFileProfile(session: live.session, fileUpload: self.deployment?.fileUpload)
    }

    /// Keeps the attachments of a shown message, for `download-attachment` (the latest messages only).
    mutating func keepFiles(_ message: GenesysStructuredMessage) {
        let files = message.attachments
        guard !files.isEmpty else { return }
        if self.files.updateValue(Dictionary(files.map { ($0.id, $0) }) { first, _ in first }, forKey: message.id) == nil {
            self.fileOrder.append(message.id)
        }
        while self.fileOrder.count > Self.recentLimit { self.files[self.fileOrder.removeFirst()] = nil }
    }

    /// `download-attachment`: the GET of the file's presigned URL (never logged), with its name and type.
    package func download(messageID: String, attachmentID: String, maximumSize: Int) throws(ChannelError) -> (NetworkRequest, ChatFile) {
        guard let files = self.files[messageID] else {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(messageID) has no files (or is no longer among the latest \(Self.recentLimit))"
            )
        }
        guard let file = files[attachmentID] else {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(messageID) has no file \(attachmentID); it has \(files.keys.sorted().joined(separator: ", "))"
            )
        }
        let request = NetworkRequest(url: file.url, timeout: self.settings.requestTimeout * 6, maximumResponseSize: maximumSize, usesCookies: false)
        return (request, ChatFile(name: file.filename, mimeType: file.mime ?? "application/octet-stream", bytes: []))
    }

    /// `send-file`: checked against the deployment's file profile, then `onAttachment`; request `id` hears
    /// once the message carrying the file came back.
    package mutating func sendFile(_ file: ChatFile, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        if self.isConfigured, let refusal = self.fileProfile.refusal(fileName: file.name, mimeType: file.mimeType, byteCount: file.bytes.count) {
            throw ChannelError(.invalidArgument, "\(self.prefix): \(refusal)")
        }
        let (actions, _) = try self.machineRequest(now: now) { $0.attach(fileName: file.name, fileType: file.mimeType, fileSize: file.bytes.count) }
        var attachmentId: String?
        for case .writeLink(let bytes) in actions {
            if case .onAttachment(let upload)? = (try? GenesysRequest(decoding: bytes))?.action { attachmentId = upload.attachmentId }
        }
        guard let attachmentId else { return actions }
        self.uploads[attachmentId] = GenesysUpload(caller: id, file: file)
        return actions + [.setTimer(.request(id), after: self.settings.requestTimeout * 6)]
    }

    /// `download-attachment` again after the file's URL was refused: `getAttachment {attachmentId}` (SDK
    /// `MessagingClient.refreshAttachmentUrl`, whose documentation says a download URL "typically expires
    /// after 10 minutes" and that using it later "will result in an error"); request `id` hears once the
    /// fresh URL came, and ``download(messageID:attachmentID:maximumSize:)`` then gives it. Only when
    /// configured, as the SDK's `send` checks.
    package mutating func refreshDownload(messageID: String, attachmentID: String, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        _ = try self.download(messageID: messageID, attachmentID: attachmentID, maximumSize: 0)
        let (actions, tracingIds) = try self.machineRequest(now: now) { $0.refreshAttachment(attachmentId: attachmentID) }
        self.refreshes += tracingIds.map { ($0, attachmentID, id) }
        return actions + [.setTimer(.request(id), after: self.settings.requestTimeout)]
    }

    /// A `PresignedUrlResponse` that is a refresh (SDK `isRefreshUrl`, then
    /// `AttachmentHandlerImpl.onAttachmentRefreshed`: the attachment's state becomes `Refreshed(url)`): the
    /// file's URL is the fresh one, and its callers hear.
    mutating func refreshed(_ answer: GenesysPresignedURL) -> [Action] {
        for messageID in self.files.keys where self.files[messageID]?[answer.attachmentId] != nil {
            self.files[messageID]?[answer.attachmentId]?.url = answer.url
        }
        let waiting = self.refreshes.filter { $0.attachmentId == answer.attachmentId }.map(\.id)
        self.refreshes.removeAll { $0.attachmentId == answer.attachmentId }
        return self.reply(to: waiting, .success(.done))
    }

    /// An error that answers a `getAttachment` (its tracing id, or, without one, an attachment's code:
    /// 4008 AttachmentHasExpired, 4009 AttachmentNotFound) fails the oldest caller waiting; nil if none.
    mutating func refreshRefused(_ code: GenesysErrorCode, _ text: String, tracingId: String?) -> [Action]? {
        let attachmentCodes: [GenesysErrorCode] = [.attachmentHasExpired, .attachmentNotFound, .attachmentNotSuccessfullyUploaded]
        let index =
            tracingId.flatMap { tracingId in self.refreshes.firstIndex { $0.tracingId == tracingId } }
            ?? (tracingId == nil && attachmentCodes.contains(code) ? self.refreshes.indices.first : nil)
        guard let index else { return nil }
        let refresh = self.refreshes.remove(at: index)
        let error = ChannelError(.server, "\(self.prefix): \(self.server) gave no fresh URL for file \(refresh.attachmentId): \(code): \(text)")
        return [.log(.warning, error.message)] + self.reply(to: [refresh.id], .failure(error))
    }

    /// `PresignedUrlResponse` for an upload of ours: PUT the file there with its headers; a refresh's goes
    /// to ``refreshed(_:)``.
    mutating func presigned(_ answer: GenesysPresignedURL) -> [Action] {
        if answer.isRefreshedDownload { return self.refreshed(answer) }
        guard var upload = self.uploads[answer.attachmentId], upload.phase == .presigning else { return [] }
        upload.phase = .uploading
        self.uploads[answer.attachmentId] = upload
        let request = NetworkRequest(
            method: "PUT",
            url: answer.url,
            headers: answer.headers.sorted { $0.key < $1.key }.map { NetworkHeader($0.key, $0.value) },
            body: upload.file.bytes,
            timeout: self.settings.requestTimeout * 6,
            usesCookies: false
        )
        return [.work(.upload(request, attachmentId: answer.attachmentId))]
    }

    /// The PUT's answer: a failure ends the upload; success waits for the service's UploadSuccessEvent.
    package mutating func uploaded(_ attachmentId: String, failure: String?) -> [Action] {
        guard var upload = self.uploads[attachmentId] else { return [] }
        guard let failure else {
            upload.phase = .uploaded
            self.uploads[attachmentId] = upload
            return []
        }
        return self.uploadFailed(attachmentId, "the upload failed: \(failure)")
    }

    /// `UploadSuccessEvent`: the message that carries the file (a Text with no text and the attachment, SDK
    /// `MessagingClientImpl.sendMessage` with attachments) goes out; its copy confirms the caller.
    mutating func uploadSucceeded(_ attachmentId: String, now: UnixTime) -> [Action] {
        guard let upload = self.uploads.removeValue(forKey: attachmentId) else { return [] }
        do throws(ChannelError) {
            let (actions, tracingIds) = try self.machineRequest(now: now) {
                $0.send(.text("", content: [.attachment(id: attachmentId)]), now: Self.instant(now))
            }
            self.sendWaiting += tracingIds.map { ($0, upload.caller) }
            return actions
        } catch {
            return self.reply(to: [upload.caller], .failure(error))
        }
    }

    /// `UploadFailureEvent` or `GenerateUrlError`: the caller hears the service's code and text.
    mutating func uploadFailed(_ attachmentId: String, _ why: String) -> [Action] {
        guard let upload = self.uploads.removeValue(forKey: attachmentId) else { return [] }
        let error = ChannelError(.server, "\(self.prefix): \(self.server) did not take \(upload.file.name): \(why)")
        return [.log(.warning, error.message)] + self.reply(to: [upload.caller], .failure(error))
    }
}
