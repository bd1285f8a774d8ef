package import AttendantPluginAPI
import AttendantPluginKit

// The chat's life (``GMSChat``): its start, with the callers waiting for it, and its end.
extension GMSChatSession {
    /// Starts a chat unless one is active or starting, and has request `id` wait until GMS gave its keys,
    /// for at most `timeout`.
    package mutating func startChat(_ id: UInt64, timeout: Duration) throws(ChannelError) -> [Action] {
        switch self.chat.start(id, timeout: timeout, mayStart: self.connection.isConnected || self.listening) {
        case .active?:
            return [.replied(id, .success(.done))]
        case .waiting?:
            return [.setTimer(.request(id), after: timeout)]
        case .requestChat?:
            return [.work(.requestChat), .setTimer(.request(id), after: timeout)]
        case nil:
            throw ChannelError(.illegalState, "\(self.prefix): not connected to \(self.server) yet")
        }
    }

    /// Asking for the chat, or creating it (v1), failed: every caller waiting for it hears `error`.
    package mutating func startFailed(_ error: ChannelError) -> [Action] {
        self.reply(to: self.chat.startFailed(), .failure(error))
    }

    /// v1: `request-chat` made the chat's service; the interaction is created once connected.
    package mutating func v1ServiceMade(_ serviceID: String) -> [Action] {
        guard let create = self.chat.serviceMade(serviceID, connected: self.connection.isConnected) else { return [] }
        return [.work(.createV1Interaction(serviceID: create))]
    }

    /// v1: the chat interaction was created, with its keys and first rows.
    package mutating func v1Created(_ keys: GMSChatKeys, _ event: GMSChatV1Event, now: UnixTime) -> [Action] {
        guard self.phase == .starting else { return [] }
        let (began, waiting) = self.begin(keys)
        return began + self.accept(event.rows, now: now) + self.reply(to: waiting, .success(.done))
    }

    /// The chat started: keys kept in the secrets, a thread for the host. An earlier error was the
    /// earlier chat's (or its start's), not this one's. The callers that waited for the start, in request
    /// order, hear it after what the caller adds.
    mutating func begin(_ keys: GMSChatKeys) -> (actions: [Action], waiting: [UInt64]) {
        let threadID = self.settings.makeThreadID()
        let waiting = self.chat.began(keys, thread: threadID)
        self.lastError = nil
        self.transcript.restart()
        self.history = GMSChatHistory()
        let actions: [Action] =
            GMSChatKeys.writes(keys).map(Action.write) + [
                Self.store(threadID, key: StoreKey.thread), Self.store("0", key: StoreKey.position),
                Self.store(Phase.active.rawValue, key: StoreKey.phase),
                .emit(.chatStateChanged(.ready)), .emit(.threadUpdated(self.thread(threadID, .ready))),
                .log(.info, "\(self.prefix): the chat with \(self.server) started"),
            ]
        return (actions, waiting)
    }

    /// GMS ended the chat: the keys are forgotten, the thread and its contact closed.
    mutating func end() -> [Action] {
        guard let ended = self.chat.end() else { return [] }
        var actions: [Action] =
            [.cancelTimer(.gap)] + GMSChatKeys.writes(nil).map(Action.write) + [Self.store(Phase.ended.rawValue, key: StoreKey.phase)]
        actions.append(.emit(.threadUpdated(self.thread(ended.thread, .closed))))
        if ended.contact == .recorded { actions.append(.emit(.contactEnded(contactID: ended.thread, outcome: .completed))) }
        return actions + [.emit(.chatStateChanged(.closed)), .log(.info, "\(self.prefix): the chat with \(self.server) ended")]
    }
}
