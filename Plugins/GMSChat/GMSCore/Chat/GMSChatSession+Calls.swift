package import AttendantPluginAPI
import AttendantPluginKit

/// What a publish on the chat's service channel is for, and so what GMS's answer comes to.
enum GMSChatPublish: Sendable {
    /// A caller's operation, request `id`, answered with `reply`; a failure calls it `what` (`sendMessage to`).
    case caller(UInt64, what: String, reply: ChannelReply)
    /// `requestChat`: a failure fails the start (GMS's answer, an event, starts the chat).
    case requestChat
    /// `requestNotifications` after a position, for the catch-up or (`fetch`) the thread's history.
    case notifications(after: Int, fetch: Bool)

    var caller: UInt64? {
        if case .caller(let id, _, _) = self { return id }
        return nil
    }

    /// What a failure calls it, before the server's description.
    var what: String {
        switch self {
        case .caller(_, let what, _): what
        case .requestChat: "requesting a chat from"
        case .notifications(let position, _): "asking for the chat's events after position \(position) from"
        }
    }
}

// How the session's work and the callers' requests reach GMS: v2 publishes on CometD, v1's form POSTs and
// v2's file calls over HTTP (``GMSChatCall``, ``GMSChatRequestCall``), and what their answers come to. The
// channel only sends.
extension GMSChatSession {
    // MARK: The session's work

    /// v1's HTTP call for `work` (`request-chat`, the chat's creation, `refresh`); nil on v2, or for a
    /// refresh without the chat's service (the session's step ``carryOut(_:now:)`` does it then).
    package func call(for work: Work) -> GMSChatCall? {
        guard self.settings.apiVersion == 1 else { return nil }
        let http = self.settings.http
        let customer = self.settings.customer
        switch work {
        case .requestChat:
            return GMSChatCall(.requestChat, .requestChat(service: self.settings.service, subject: customer.subject), http: http)
        case .createV1Interaction(let serviceID):
            return GMSChatCall(.createInteraction(serviceID: serviceID), .createInteraction(serviceID: serviceID, customer: customer), http: http)
        case .requestNotifications(let keys, let position):
            guard let serviceID = keys.serviceID else { return nil }
            return GMSChatCall(.refresh(serviceID: serviceID, fetch: false), .refresh(serviceID: serviceID, after: position), http: http)
        case .fetchRows(let keys, let from):
            guard let serviceID = keys.serviceID else { return nil }
            return GMSChatCall(.refresh(serviceID: serviceID, fetch: true), .refresh(serviceID: serviceID, after: from - 1), http: http)
        case .post:
            return nil
        }
    }

    /// The chat's work that is not an HTTP call, when its turn comes: v2 publishes `requestChat` or
    /// `requestNotifications` (from the next position); a request that cannot be made (no secure key,
    /// or v1 without the chat's service) did not go through.
    package mutating func carryOut(_ work: Work, now: UnixTime) -> [Action] {
        let v2 = self.settings.apiVersion == 2
        switch work {
        case .requestChat where v2:
            return self.publish(GMSChatV2Operation.requestChat(self.settings.customer), .requestChat, now: now)
        case .requestNotifications(let keys, let position):
            let data = v2 ? GMSChatV2Operation.requestNotifications(keys: keys, after: position) : nil
            guard let data else { return self.asked(fetch: false, succeeded: false) }
            return self.publish(data, .notifications(after: position, fetch: false), now: now)
        case .fetchRows(let keys, let from):
            let data = v2 ? GMSChatV2Operation.requestNotifications(keys: keys, after: from - 1) : nil
            guard let data else { return self.asked(fetch: true, succeeded: false) }
            return self.publish(data, .notifications(after: from - 1, fetch: true), now: now)
        case .requestChat, .createV1Interaction, .post:
            return []
        }
    }

    /// What v1's `refresh` brought: the rows, or a warning (the events are asked for again once connected).
    package mutating func refreshed(_ rows: Result<GMSChatV1Event, ChannelError>, fetch: Bool, now: UnixTime) -> [Action] {
        switch rows {
        case .success(let event):
            return self.received(event, now: now) + self.asked(fetch: fetch, succeeded: true)
        case .failure(let error):
            return [.log(.warning, "\(error.message); asking again once connected")] + self.asked(fetch: fetch, succeeded: false)
        }
    }

    /// The request for the chat's events (or the history's rows) went through or failed.
    mutating func asked(fetch: Bool, succeeded: Bool) -> [Action] {
        fetch ? self.historyFetchAsked(succeeded: succeeded) : self.notificationsAsked(succeeded: succeeded)
    }

    /// Publishes `data` on the chat's service channel for `purpose`.
    mutating func publish(_ data: JSONValue, _ purpose: GMSChatPublish, now: UnixTime) -> [Action] {
        var published = ""
        let channel = GMSChatInbound.serviceChannel(self.settings.service)
        let actions = self.bayeux(now: now) { transport in
            let (bayeuxID, outputs) = transport.publish(channel, data: data)
            published = bayeuxID
            return outputs
        }
        self.publishes[published] = purpose
        return actions
    }

    /// GMS answered the publish for `purpose`, or it failed (`reason`): its caller hears it, a failed
    /// `requestChat` fails the start, and a failed `requestNotifications` is a warning (asked again once
    /// connected).
    mutating func published(_ purpose: GMSChatPublish, failure reason: String?) -> [Action] {
        let error = reason.map { ChannelError(.transient, "\(self.prefix): \(purpose.what) \(self.server) failed: \($0)") }
        switch purpose {
        case .caller(let id, _, let reply):
            return [.replied(id, error.map { .failure($0) } ?? .success(reply))]
        case .requestChat:
            return error.map { self.startFailed($0) } ?? []
        case .notifications(_, let fetch):
            let warning = error.map { [Action.log(.warning, "\($0.message); asking again once connected")] } ?? []
            return warning + self.asked(fetch: fetch, succeeded: reason == nil)
        }
    }

    // MARK: The callers' calls

    /// v1: a chat operation's POST with the chat's service; nil on v2 (``operate(_:_:now:)`` publishes it).
    package func call(for operation: GMSChatOperation) throws(ChannelError) -> GMSChatRequestCall? {
        guard self.settings.apiVersion == 1 else { return nil }
        guard let serviceID = self.keys?.serviceID else { throw self.noChat }
        let form = GMSChatV1Form.operation(operation.v1, serviceID: serviceID, fields: operation.fields)
        return GMSChatRequestCall(.operation(form, serviceID: serviceID, reply: operation.reply), http: self.settings.http)
    }

    /// v2: publishes a chat operation with the chat's keys; request `id` hears the operation's reply once
    /// GMS acknowledged it.
    package mutating func operate(_ operation: GMSChatOperation, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        guard let keys = self.keys, let data = GMSChatV2Operation.operation(operation.v2, keys: keys, fields: operation.fields) else {
            throw self.noChat
        }
        return self.publish(data, .caller(id, what: "\(operation.v2) to", reply: operation.reply), now: now)
    }

    /// `download-attachment`: `fileDownload` of a held message's file, refused first when its row says it
    /// is larger than ``GMSChatRequestCall/downloadLimit``.
    package func download(messageID: String, attachmentID: String) throws(ChannelError) -> GMSChatRequestCall {
        let (attachment, keys) = try self.attachment(messageID: messageID, attachmentID: attachmentID)
        let limit = GMSChatRequestCall.downloadLimit
        if let size = attachment.size, size > limit {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): \(attachment.name) has \(size) bytes, more than the \(limit) bytes (64 MiB) attendant downloads"
            )
        }
        guard let operation = GMSChatFileOperation.download(service: self.settings.service, keys: keys, fileID: attachment.id) else {
            throw self.noChat
        }
        return GMSChatRequestCall(.download(operation, attachment), http: self.settings.http)
    }

    /// `send-file`: `fileGetLimits`, then `fileUpload` once GMS's limits take the file.
    package func sendFile(_ file: ChatFile) throws(ChannelError) -> GMSChatRequestCall {
        let service = self.settings.service
        let boundary = "attendant-" + self.settings.makeThreadID()
        guard let keys = self.keys, let limits = GMSChatFileOperation.limits(service: service, keys: keys),
            let upload = GMSChatFileOperation.upload(
                service: service,
                keys: keys,
                name: file.name,
                mimeType: file.mimeType,
                bytes: file.bytes,
                boundary: boundary
            )
        else { throw self.noChat }
        return GMSChatRequestCall(.fileLimits(limits, name: file.name, size: file.bytes.count, upload: upload), http: self.settings.http)
    }

    var noChat: ChannelError {
        ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
    }

    // MARK: The host's application state

    /// The host goes to the background: a listening channel says goodbye with the highest position shown
    /// (``disconnect(_:now:)``, request `id` hearing once the session ended); another hears at once.
    package mutating func goToBackground(_ id: UInt64, now: UnixTime) -> [Action] {
        guard self.enterBackground() else { return [.replied(id, .success(.done))] }
        let going = Action.log(
            .info,
            "\(self.prefix): going to the background: disconnecting from \(self.server) at transcript position \(self.ledger.shown)"
        )
        return [going] + self.disconnect(id, now: now)
    }

    /// The host is back in the foreground: a channel that listened in the background starts a new session,
    /// which asks GMS for everything after the position shown.
    package mutating func comeToForeground(now: UnixTime) -> [Action] {
        guard self.enterForeground() else { return [] }
        return [.log(.info, "\(self.prefix): back in the foreground: a new session with \(self.server)")] + self.startSession(now: now)
    }
}
