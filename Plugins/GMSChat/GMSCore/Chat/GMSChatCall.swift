package import AttendantPluginAPI
import AttendantPluginKit

/// One of chat API v1's form POSTs that the session's work makes (``GMSChatSession/call(for:)``):
/// `request-chat`, the chat's creation and `refresh`. The channel only sends its request and hands the
/// outcome back; how the answer becomes the session's next step is here, read outside the session's lock.
package struct GMSChatCall: Sendable {
    package enum Purpose: Sendable, Hashable {
        /// `request-chat`: GMS makes the chat's service.
        case requestChat
        /// `…/ixn/chat`: the chat interaction of the service, with its keys and first rows.
        case createInteraction(serviceID: String)
        /// `refresh`: the chat's events after a position, for the catch-up or (`fetch`) the thread's
        /// history.
        case refresh(serviceID: String, fetch: Bool)
    }

    package let purpose: Purpose
    package let form: GMSChatV1Form
    package let request: NetworkRequest
    let http: GMSChatHTTP

    init(_ purpose: Purpose, _ form: GMSChatV1Form, http: GMSChatHTTP) {
        self.purpose = purpose
        self.form = form
        self.request = http.request(form)
        self.http = http
    }

    /// What the outcome is to the session: a service id or the keys for the start (or why it failed),
    /// the rows `refresh` brought (or a warning, and the events are asked for again once connected).
    package func step(_ outcome: Result<NetworkResponse, NetworkError>, now: UnixTime) -> (inout GMSChatSession) -> [GMSChatSession.Action] {
        let reply = self.http.read(outcome, of: self.form)
        switch self.purpose {
        case .requestChat:
            let serviceID = reply.flatMap { reply in Result { () throws(ChannelError) in try self.http.serviceID(reply) } }
            return { session in
                switch serviceID {
                case .success(let serviceID): session.v1ServiceMade(serviceID)
                case .failure(let error): session.startFailed(error)
                }
            }
        case .createInteraction(let serviceID):
            let created = reply.flatMap { reply in Result { () throws(ChannelError) in try self.http.created(reply, serviceID: serviceID) } }
            return { session in
                switch created {
                case .success(let (keys, event)): session.v1Created(keys, event, now: now)
                case .failure(let error): session.startFailed(error)
                }
            }
        case .refresh(let serviceID, let fetch):
            let rows = reply.flatMap { reply in Result { () throws(ChannelError) in try self.http.refreshed(reply, serviceID: serviceID) } }
            return { session in session.refreshed(rows, fetch: fetch, now: now) }
        }
    }
}

/// An HTTP call a caller's request waits for: a v1 operation of the chat (its answer carries rows, as an
/// event does), or v2's file management: `fileDownload`, and `fileGetLimits` before `fileUpload`. The
/// session makes it (``GMSChatSession/call(for:)``, ``GMSChatSession/download(messageID:attachmentID:)``,
/// ``GMSChatSession/sendFile(_:)``); the channel sends it and what follows, until the caller's reply.
package struct GMSChatRequestCall: Sendable {
    package enum Purpose: Sendable {
        /// A v1 operation: the caller hears `reply`, the session takes the rows.
        case operation(GMSChatV1Form, serviceID: String, reply: ChannelReply)
        /// `fileGetLimits`, then `upload` if GMS takes a file named `name` of `size` bytes.
        case fileLimits(GMSChatFileOperation, name: String, size: Int, upload: GMSChatFileOperation)
        case fileUpload(GMSChatFileOperation)
        /// `fileDownload` of an attachment, at most ``GMSChatRequestCall/downloadLimit`` bytes.
        case download(GMSChatFileOperation, ChatAttachment)
    }

    /// What the caller's call comes to.
    package enum Answer: Sendable {
        /// The caller's reply; v1's rows (a chat interaction, as its `/_genesys` events) for the session.
        case reply(ChannelReply, rows: GMSChatV1Event?)
        /// The next call.
        case next(GMSChatRequestCall)
    }

    /// The most a download may bring: what the control API hands on (64 MiB).
    package static let downloadLimit = 64 << 20
    /// The most any other file call's answer may bring.
    static let answerLimit = 4 << 20

    package let purpose: Purpose
    package let request: NetworkRequest
    let http: GMSChatHTTP

    init(_ purpose: Purpose, http: GMSChatHTTP) {
        self.purpose = purpose
        self.http = http
        switch purpose {
        case .operation(let form, _, _): self.request = http.request(form)
        case .fileLimits(let operation, _, _, _), .fileUpload(let operation):
            self.request = http.request(operation, maximumResponseSize: Self.answerLimit)
        case .download(let operation, _): self.request = http.request(operation, maximumResponseSize: Self.downloadLimit)
        }
    }

    var prefix: String { GMSChatSession.prefix }

    /// The caller's reply or the next call, or the failure naming the operation and what GMS said.
    package func answer(_ outcome: Result<NetworkResponse, NetworkError>) throws(ChannelError) -> Answer {
        switch self.purpose {
        case .operation(let form, let serviceID, let reply):
            let answer = try self.http.read(outcome, of: form).get()
            return .reply(reply, rows: try? GMSChatV1Form.event(answer, serviceID: serviceID))
        case .fileLimits(let operation, let name, let size, let upload):
            let answer = try self.http.answer(try self.http.response(outcome, of: operation, limit: Self.answerLimit).get(), of: operation)
            let limits: GMSChatFileLimits
            do throws(GMSDecodeError) {
                limits = try GMSChatFileLimits(reply: answer)
            } catch {
                throw ChannelError(.server, "\(self.prefix): \(self.http.serverDescription) answered fileGetLimits without limits: \(error)")
            }
            if let refusal = limits.refusal(name: name, size: size) {
                throw ChannelError(.invalidArgument, "\(self.prefix): \(self.http.serverDescription) does not take this file: \(refusal)")
            }
            return .next(GMSChatRequestCall(.fileUpload(upload), http: self.http))
        case .fileUpload(let operation):
            _ = try self.http.answer(try self.http.response(outcome, of: operation, limit: Self.answerLimit).get(), of: operation)
            return .reply(.done, rows: nil)
        case .download(let operation, let attachment):
            let response = try self.http.response(outcome, of: operation, limit: Self.downloadLimit).get()
            let type = response.header("Content-Type").flatMap { $0.hasPrefix("application/json") ? nil : $0 } ?? attachment.mimeType
            return .reply(.file(ChatFile(name: attachment.name, mimeType: type, bytes: response.body)), rows: nil)
        }
    }
}
