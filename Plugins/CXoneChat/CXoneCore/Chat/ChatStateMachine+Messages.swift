package import AttendantPluginAPI
import AttendantPluginKit

// The "chat with an agent" diagram, the outbox and the once-only reporting of messages.
extension ChatStateMachine {
    /// `sendMessage(message:)`: a new thread's first message is preceded by the welcome message
    /// (SendOutbound) if FireProactiveAction brought one; then SendMessage. Each goes to the outbox first
    /// (``Action/persistOutbox(_:)``) and leaves it when its MessageCreated arrives. While the connection
    /// is being restored, or while the desktop sleeps (``isAsleep``), the messages wait in the outbox and
    /// go out once the chat is ready again.
    /// `answer`: the message answers a choice (``Command/sendAnswer(threadID:messageID:text:_:)``); as the SDK
    /// sends it, it goes out like any message, after the welcome message of a new thread.
    package mutating func sendMessage(
        threadID: String,
        text: String,
        answer: Answer? = nil,
        attachments: [SentFile] = [],
        at now: UnixTime
    ) throws(ChatError) -> [Action] {
        var taken: [Action] = []
        var threadID = threadID
        if let closed = self.known.index(of: threadID), self.known[closed].state == .closed {
            // Taken up only if the message can go: a refused send changes nothing.
            let before = self
            do throws(ChatError) {
                (threadID, taken) = try self.takeUp(closedAt: closed)
                guard [.connecting, .connected, .ready].contains(self.state) || self.isAsleep else {
                    throw .illegalState("send a message", self.state, expected: "connect first")
                }
            } catch {
                self = before
                throw error
            }
        }
        guard [.connecting, .connected, .ready].contains(self.state) || self.isAsleep else {
            throw .illegalState("send a message", self.state, expected: "connect first")
        }
        guard let index = self.known.index(of: threadID) else {
            throw ChatError(.invalidThread, "there is no chat thread \(threadID); create a thread first")
        }
        let thread = self.known[index]
        var entries: [OutboxEntry] = []
        if thread.state == .pending, let welcome = self.welcomeMessage, self.known.markWelcomed(thread.id) {
            self.welcomeMessage = nil
            entries.append(OutboxEntry(messageID: self.random.uuid(), threadID: thread.id, text: welcome, isWelcome: true, writtenAt: now))
        }
        let fields = thread.state == .pending ? self.known.takeCustomFields(ofThread: thread.id) : [:]
        entries.append(
            OutboxEntry(
                messageID: self.random.uuid(),
                threadID: thread.id,
                text: text,
                customFields: fields,
                writtenAt: now,
                answer: answer,
                attachments: attachments
            )
        )
        var actions = taken
        for entry in entries {
            self.outgoing.add(entry)
            actions.append(.persistOutbox(entry))
        }
        if self.state == .ready {
            for entry in entries { actions += self.deliver(entry) }
        }
        return actions
    }

    /// Sends every outbox entry not yet sent on this connection, oldest first.
    mutating func flushOutbox() -> [Action] {
        guard let connected = self.connection.connected else { return [] }
        var actions: [Action] = []
        for entry in self.outgoing.unsent(on: connected.sent) {
            actions += self.deliver(entry)
        }
        return actions
    }

    mutating func deliver(_ entry: OutboxEntry) -> [Action] {
        self.connection.modifyConnected { $0.sent.insert(entry.messageID) }
        if entry.isWelcome {
            return [.send(.sendOutbound(threadID: entry.threadID, messageID: entry.messageID, text: entry.text))]
        }
        if let answer = entry.answer {
            return [.send(.sendAnswer(threadID: entry.threadID, messageID: entry.messageID, text: entry.text, answer))]
        }
        if !entry.attachments.isEmpty {
            return [
                .send(
                    .sendFiles(
                        threadID: entry.threadID,
                        messageID: entry.messageID,
                        text: entry.text,
                        customFields: entry.customFields,
                        entry.attachments
                    )
                )
            ]
        }
        return [.send(.sendMessage(threadID: entry.threadID, messageID: entry.messageID, text: entry.text, customFields: entry.customFields))]
    }

    /// The chat was disconnected by ``background(at:)`` and ``foreground()`` will connect it again.
    package var isAsleep: Bool { self.connection == .asleep }

    /// Whether the message went out on the current connection and its MessageCreated has not come yet.
    package func awaitsConfirmation(_ messageID: String) -> Bool {
        guard let connected = self.connection.connected else { return false }
        return self.outgoing.awaitsConfirmation(messageID, sent: connected.sent)
    }

    /// The server answered a message's SendMessage (or SendOutbound) with an error: reported with the
    /// message's id (``ChatError/messageID``). A `transient` failure (a server error: the gateway could not
    /// handle the frame) keeps the entry, which goes out again on the next connection; a refusal (an
    /// operation error: the server will not take this message) removes it, as sending it again would be
    /// refused again.
    package mutating func messageRefused(messageID: String, _ error: ChatError, transient: Bool) -> [Action] {
        guard let entry = self.outgoing.entry(messageID) else { return [] }
        var failure = error
        failure.messageID = entry.messageID
        if transient {
            failure.message += "; it stays in the outbox and is sent again when the chat reconnects"
            return [.report(.error(failure))]
        }
        failure.message += "; it was not sent and is removed from the outbox"
        return self.confirmOutbox(entry.messageID) + [.report(.error(failure))]
    }

    /// The server has the message: it leaves the outbox.
    mutating func confirmOutbox(_ messageID: String) -> [Action] {
        guard let entry = self.outgoing.remove(messageID) else { return [] }
        return [.removeFromOutbox(messageID: entry.messageID)]
    }

    /// A message the server created: it leaves the outbox, joins its thread and is reported once. A
    /// `hidden` one (the SDK keeps it out of the thread, ``Input/hiddenMessageCreated(_:caseID:)``) and
    /// the live chat's opening marker only confirm the outbox and make the thread ready.
    mutating func messageCreated(_ message: ChatMessage, caseID: String?, hidden: Bool = false) -> [Action] {
        guard self.isSocketOpen, !self.isAuthorizing else { return [] }
        // The welcome message came from this client's outbox: part of the thread, not news.
        let isOwnWelcome = self.outgoing.entry(message.id)?.isWelcome == true
        var actions = self.confirmOutbox(message.id)
        let index: Int
        if let found = self.known.index(of: message.threadID) {
            index = found
        } else {
            self.known.append(ChatThread(id: message.threadID, state: .ready))
            index = self.known.all.count - 1
            actions += self.storeThreadIDs()
        }
        if let caseID { self.known.setCaseID(caseID, ofThread: self.known[index].id) }
        if hidden || Self.isInternalMarker(message) {
            // The live chat's opening marker creates the thread and its case, but is no message; nor is
            // the answer to the inactivity popup (the SDK's `shouldIgnoreMessage`).
            guard [.pending, .received, .loaded].contains(self.known[index].state) else { return actions }
            self.known[index].state = .ready
            return actions + [.report(.threadUpdated(self.known[index]))]
        }
        guard self.activity.firstMeeting(message.id) else { return actions }
        var thread = self.known[index]
        // The agent's message ends their typing.
        if message.direction == .fromAgent { self.activity.typingEnded(inThread: thread.id) }
        thread.lastMessages.append(message)
        if thread.lastMessages.count > self.configuration.lastMessagesLimit {
            thread.lastMessages.removeFirst(thread.lastMessages.count - self.configuration.lastMessagesLimit)
        }
        if thread.state == .pending || thread.state == .received || thread.state == .loaded { thread.state = .ready }
        self.known[index] = thread
        actions.append(.report(.threadUpdated(thread)))
        if !isOwnWelcome { actions.append(.report(.messageReceived(message))) }
        return actions + self.markShown([message], in: thread.id)
    }

    mutating func proactiveAction(welcome: String) -> [Action] {
        self.welcomeMessage = welcome
        return []
    }
}
