import AttendantPluginAPI
import CXoneCore

// Sending a message, and telling the user what became of it.
extension CXoneChatChannel {
    /// Sends to `threadID`, or to the current thread; with no thread at all, one is created first.
    ///
    /// The message is in the outbox (the state database) before its frame is written. The reply's fields
    /// say what became of it: `delivery` is `sent` once the server confirmed it (MessageCreated), or
    /// `queued` while it waits in the outbox for the next connection (the chat is reconnecting, or asleep
    /// with the desktop, or no confirmation came within the response timeout), with a `reason`; `message`
    /// and `thread` are its ids. A refusal by the server throws a ``ChannelError/Code/server`` error with
    /// the server's reason (``ChatStateMachine/messageRefused(messageID:_:transient:)`` decides whether
    /// the message stays in the outbox).
    func sendMessage(_ text: String, to threadID: String?) async throws -> ChannelReply {
        guard !text.isEmpty else { throw ChannelError(.illegalState, "\(self.prefix): the message is empty") }
        let now = self.host.now()
        let timeout = self.configuration.machine.responseTimeout
        let gateway = self.configuration.gatewayDescription
        return try await self.wait(timeout: timeout) { machine, state throws(ChatError) in
            var actions: [Action] = []
            var target = threadID
            if target == nil {
                if let current = Self.currentThread(machine, state) {
                    target = current
                } else if machine.state == .ready || machine.state == .closed {
                    actions += try machine.createThread()
                    target = machine.threads.last?.id
                    state.currentThread = target
                } else if machine.isAsleep {
                    throw ChatError(.illegalChatState, "cannot start a new thread while the desktop is asleep (the chat is \(machine.state)); send again once it has resumed")
                } else {
                    throw ChatError(.illegalChatState, "cannot send a message while the chat is \(machine.state): connect first")
                }
            }
            guard let target else { throw ChatError(.invalidThread, "there is no chat thread to send to; create a thread first") }
            actions += try machine.sendMessage(threadID: target, text: text, at: now)
            guard let messageID = machine.outbox.last?.messageID else {
                throw ChatError(.invalidThread, "the message to thread \(target) did not reach the outbox")
            }
            let key = messageID.lowercased()
            let sent = ChannelReply.fields(["delivery": "sent", "message": messageID, "thread": target])
            let queued = { @Sendable (reason: String) -> ChannelReply in
                .fields(["delivery": "queued", "message": messageID, "thread": target, "reason": reason])
            }
            return Pending(
                actions: actions,
                settle: { machine, reports in
                    for case .error(let error) in reports where error.messageID?.lowercased() == key {
                        return .failure(Self.channelError(error))
                    }
                    guard machine.outbox.contains(where: { $0.messageID.lowercased() == key }) else { return .success(sent) }
                    if machine.awaitsConfirmation(messageID) { return nil }
                    let reason =
                        machine.isAsleep
                        ? "the desktop is asleep; it is sent when the chat connects again on resume"
                        : "the chat with \(gateway) is \(machine.state); it is sent once the chat is ready"
                    return .success(queued(reason))
                },
                timedOut: { machine in
                    guard machine.outbox.contains(where: { $0.messageID.lowercased() == key }) else { return .success(sent) }
                    return .success(queued("no confirmation from \(gateway) within \(timeout.components.seconds) s; it is sent again when the chat reconnects"))
                }
            )
        }
    }
}
