package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

/// A caller's file command as the REST call it makes, and what the call's answer comes to: a downloaded
/// attachment is the reply; an uploaded file is sent as a message that carries it (a SendMessage whose
/// `attachments` hold the `fileUrl`, as the SDK's `ChatThreadService` sends one after its upload).
package enum ChatFileCall: Sendable {
    /// `GET` a message's attachment, `max-attachment-size` at most.
    case download(ChatCall, ChatMessageExtras.File)
    /// `POST …/attachment`, then a message carrying the file on `threadID`.
    case upload(ChatCall, threadID: String?, ChatCommand.Settings)

    package enum Answer {
        case reply(ChannelReply)
        /// An operation to run next, whose reply is the caller's.
        case then(ChatOperation)
    }

    /// The call to send.
    package var call: ChatCall {
        switch self {
        case .download(let call, _), .upload(let call, _, _): call
        }
    }

    /// What the call's `outcome` comes to (at `now`), or what went wrong.
    package func answer(_ outcome: Result<NetworkResponse, NetworkError>, now: UnixTime) throws(ChannelError) -> Answer {
        switch self {
        case .download(let call, let file):
            do throws(ChatError) {
                return .reply(.file(ChatFile(name: file.name, mimeType: file.mimeType, bytes: try call.body(outcome).get())))
            } catch {
                throw error.channelError()
            }
        case .upload(let call, let threadID, let settings):
            let sent = try call.uploaded(outcome).get()
            return .then(
                try .sendMessage(
                    "",
                    to: threadID,
                    attachments: [sent],
                    at: now,
                    timeout: settings.responseTimeout,
                    gateway: settings.gatewayDescription
                )
            )
        }
    }
}

extension ChatSession {
    /// The call for a `download-attachment` or `send-file` command (nil for any other). A file the
    /// session does not know is an invalid argument (``attachment(threadID:messageID:attachmentID:)``); a
    /// file the channel's `fileRestrictions` would not take is refused before anything is sent, saying
    /// what it takes, as the SDK checks before it uploads. Without restrictions the server decides.
    package func fileCall(_ command: ChatCommand, _ settings: ChatCommand.Settings) throws(ChannelError) -> ChatFileCall? {
        switch command {
        case .downloadAttachment(let threadID, let messageID, let attachmentID):
            let file = try self.attachment(threadID: threadID, messageID: messageID, attachmentID: attachmentID)
            return .download(.attachment(file.url, limit: settings.maximumAttachmentSize, settings: self.settings), file)
        case .sendFile(let threadID, let file):
            guard let configuration = self.machine.channelConfiguration else {
                throw ChannelError(.illegalState, "\(self.prefix): the channel's configuration is not loaded yet: connect first")
            }
            if let refusal = configuration.fileRestrictions?.refusal(name: file.name, mimeType: file.mimeType, size: file.bytes.count) {
                throw ChannelError(.invalidArgument, "\(self.prefix): \(refusal)")
            }
            let call = ChatCall.upload(file, brandID: settings.brandID, channelID: settings.channelID, settings: self.settings)
            return .upload(try call.mapError { $0.channelError() }.get(), threadID: threadID, settings)
        default:
            return nil
        }
    }

    // MARK: The socket

    /// What the socket brings, as the session's steps: a frame is decoded here, outside the lock (with
    /// `limits`, at `now`); one that cannot be is counted and logged.
    package static func step(for event: LinkEvent, limits: CXoneWireLimits, now: UnixTime) -> ((inout ChatSession) -> [Action])? {
        switch event {
        case .opened:
            return { $0.socketOpened() }
        case .closed(let reason):
            return { $0.socketClosed(reason: reason) }
        case .message(let bytes):
            do {
                let inbound = try CXoneInbound.decode(bytes, limits: limits)
                return { $0.received(inbound, now: now) }
            } catch {
                return { session in
                    session.framesRejected += 1
                    let gateway = session.settings.gatewayDescription
                    return [.log(.warning, "\(session.prefix): ignored a frame from \(gateway) (\(bytes.count) bytes): \(error)")]
                }
            }
        @unknown default:
            return nil
        }
    }
}
