import AttendantPluginAPI
import AttendantPluginKit

// The single-thread, multi-thread, create-thread and end-contact diagrams.
extension ChatStateMachine {
    /// `openThread(thread:)`: recovers a known thread from the server (its latest messages); the thread is
    /// `ready` when ThreadRecovered arrives. Legal while `ready`.
    package mutating func openThread(threadID: String) throws(ChatError) -> [Action] {
        guard self.state == .ready else {
            throw .illegalState("open a thread", self.state, expected: "connect and wait until the chat is ready")
        }
        guard let index = self.known.index(of: threadID) else {
            throw ChatError(.invalidThread, "there is no chat thread \(threadID); list the threads to see which exist")
        }
        return [.send(self.recoverCommand(self.known[index].id))]
    }

    /// `createThread(customFields:)`: a new local thread with a fresh UUID, stored and `pending` until its
    /// first message is created. On a single-thread channel that already has a thread (or a live chat whose
    /// thread is open) this throws ``ChatError/Code/unsupportedChannelConfig``, unless that thread is
    /// closed: it goes on (``takeUp(closedAt:)``). `customFields` are the pre-chat form's answers
    /// (``preChatForm``); they go with the first message.
    package mutating func createThread(customFields: [String: String] = [:]) throws(ChatError) -> [Action] {
        let mode = self.mode ?? .singleThread
        guard self.state == .ready || (self.state == .closed && mode == .liveChat) else {
            throw .illegalState("create a thread", self.state, expected: "connect and wait until the chat is ready")
        }
        switch mode {
        case .singleThread where self.threads.count == 1 && self.known[0].state == .closed:
            return try self.takeUp(closedAt: 0).actions
        case .singleThread where !self.threads.isEmpty:
            throw ChatError(
                .unsupportedChannelConfig,
                "this chat channel allows one thread and it exists already; send messages to thread \(self.known[0].id)"
            )
        case .liveChat where self.threads.contains { $0.state != .closed }:
            throw ChatError(.unsupportedChannelConfig, "this live chat channel allows one open conversation; end it before starting another")
        default:
            break
        }
        let thread = ChatThread(id: self.random.uuid(), state: .pending)
        if mode == .liveChat { self.known.replaceAll(with: []) }
        self.known.append(thread)
        self.known.setCustomFields(customFields, ofThread: thread.id)
        return self.storeThreadIDs() + self.enterPhase(.ready) + [.report(.threadUpdated(thread))]
    }

    /// The person writes to a closed conversation, on a channel of one conversation: it goes on as the
    /// SDK lets it go on. A single-thread (messaging) channel keeps its one thread after the case closes
    /// (CXone mobile SDK 3.3.1: `ChatThreadListService.processCaseStatusChangedEvent` closes only a live
    /// chat's thread, and `create()` refuses a second thread), so the thread is `ready` again and the
    /// server opens a new case with the next message. A live chat that is over starts a new conversation
    /// (`create()` clears the old live chat's thread, the SDK UI's "new conversation"). A multi-thread
    /// channel's closed thread stays closed: another thread can be created. Returns the thread to write to.
    mutating func takeUp(closedAt index: Int) throws(ChatError) -> (threadID: String, actions: [Action]) {
        let thread = self.known[index]
        switch self.mode ?? .singleThread {
        case .singleThread:
            self.known[index].state = .ready
            return (thread.id, [.report(.threadUpdated(self.known[index]))])
        case .liveChat:
            let actions = try self.createThread()
            guard let started = self.threads.last else { throw ChatError(.invalidThread, "no new conversation was started") }
            return (started.id, actions)
        case .multiThread:
            throw ChatError(.invalidThread, "the conversation in thread \(thread.id) is closed; create a new thread")
        }
    }

    /// `endConversation()`: EndContact for the thread's case; the thread is `closed` when the case status
    /// changes to closed. A thread without a case yet (nothing sent) closes at once. `threadID` may be left
    /// out when only one thread is open.
    package mutating func endConversation(threadID: String? = nil) throws(ChatError) -> [Action] {
        guard self.state == .ready else {
            throw .illegalState("end the conversation", self.state, expected: "connect and wait until the chat is ready")
        }
        let index: Int
        if let threadID {
            guard let found = self.known.index(of: threadID) else {
                throw ChatError(.invalidThread, "there is no chat thread \(threadID); list the threads to see which exist")
            }
            index = found
        } else {
            let open = self.threads.indices.filter { self.known[$0].state != .closed }
            guard open.count == 1 else {
                throw ChatError(
                    .invalidThread,
                    open.isEmpty ? "there is no open conversation to end" : "\(open.count) conversations are open; name the thread to end"
                )
            }
            index = open[0]
        }
        let thread = self.known[index]
        guard thread.state != .closed else {
            throw ChatError(.invalidThread, "the conversation in thread \(thread.id) is closed already")
        }
        guard let caseID = self.known.caseID(ofThread: thread.id) else { return self.closeThread(at: index) }
        return [.send(.endContact(threadID: thread.id, caseID: caseID))]
    }

    // MARK: Loading after connecting

    /// Single-thread and live chat recover the thread; multi-thread fetches the thread list, after a
    /// reconnect too (``threadListFetched(_:)``), as the SDK does on every connection
    /// (`ConnectionService.checkForAuthorization` → `processCustomerReconnectedEvent` →
    /// `ChatThreadListService.handleForCurrentChatMode`: `.multithread` → `fetchThreadList`).
    mutating func loadThreads() -> [Action] {
        switch self.mode ?? .singleThread {
        case .singleThread, .liveChat:
            let id = self.threads.first?.id ?? self.persisted.threadIDs.first
            return self.enterPhase(.loading(.recovery)) + [.send(self.recoverCommand(id))]
                + self.arm(.response, after: self.configuration.responseTimeout)
        case .multiThread:
            return self.enterPhase(.loading(.threadList)) + [.send(.fetchThreadList)]
                + self.arm(.response, after: self.configuration.responseTimeout)
        }
    }

    func recoverCommand(_ threadID: String?) -> Command {
        self.mode == .liveChat ? .recoverLivechat(threadID: threadID) : .recoverThread(threadID: threadID)
    }

    /// The connection flow is done: `ready` (a live chat whose conversation is over: `closed`), and the
    /// outbox goes out.
    mutating func becomeReady() -> [Action] {
        var actions = self.disarm(.response)
        self.connection.modifyConnected { $0.recovery = nil }
        let over = self.mode == .liveChat && !self.threads.isEmpty && self.threads.allSatisfy { $0.state == .closed }
        actions += self.enterPhase(over ? .conversationOver : .ready)
        actions += self.flushOutbox()
        return actions
    }

    mutating func threadRecovered(_ recovered: ChatThread, caseID: String?, agent: Party?) -> [Action] {
        guard self.isSocketOpen, !self.isAuthorizing else { return [] }
        var thread = recovered
        thread.state = recovered.state == .closed ? .closed : .ready
        thread.lastMessages.removeAll(where: Self.isInternalMarker)
        var actions: [Action] = []
        if let existing = self.thread(thread.id), thread.name.isEmpty { thread.name = existing.name }
        let key = thread.id.lowercased()
        let shown = self.persisted.shownMessages[key]
        for message in thread.lastMessages {
            actions += self.confirmOutbox(message.id)
            if self.isUnshown(message, shown: shown) { actions.append(.report(.messageReceived(message))) }
        }
        actions += self.markShown(thread.lastMessages, in: key)
        thread.lastMessages = Array(thread.lastMessages.suffix(self.configuration.lastMessagesLimit))
        if let caseID { self.known.setCaseID(caseID, ofThread: key) }
        self.known.setAgent(agent, ofThread: key)
        let activity = self.activity(threadID: key)
        thread.assignedAgent = activity.assignedAgent
        thread.positionInQueue = activity.positionInQueue
        if self.mode == .multiThread, let index = self.known.index(of: thread.id) {
            self.known[index] = thread
        } else if self.mode == .multiThread {
            self.known.append(thread)
        } else {
            self.known.replaceAll(with: [thread])
        }
        actions += self.storeThreadIDs()
        actions.append(.report(.threadUpdated(thread)))
        return actions + self.recoveryAnswered(key)
    }

    mutating func threadRecoveryFailed(threadID: String?) -> [Action] {
        switch self.loading {
        case .recovery:
            // No thread to recover (the diagram's "no thread recovery needed"); after a reconnect the known
            // thread is kept.
            var actions: [Action] = []
            if !self.isRecovering, !self.threads.isEmpty {
                self.known.replaceAll(with: [])
                actions += self.storeThreadIDs()
            }
            return actions + self.becomeReady()
        case .recoveries, .metadata:
            return self.recoveryAnswered(threadID?.lowercased())
        default:
            guard self.state == .ready, let threadID else { return [] }
            return [.report(.error(ChatError(.operation, "could not recover chat thread \(threadID)", serverCode: "RecoveringThreadFailed")))]
        }
    }

    /// One of the recoveries the flow waits for was answered.
    mutating func recoveryAnswered(_ key: String?) -> [Action] {
        switch self.loading {
        case .recovery:
            return self.becomeReady()
        case .recoveries, .metadata:
            // While metadata loads, the recoveries of the threads that appeared meanwhile count as theirs.
            return self.loadingAnswered(key)
        case .threadList, nil:
            return []
        }
    }

    /// The customer's threads. On the first connection each is loaded by its metadata (its last message);
    /// after a lost connection every thread is recovered whole, those not yet met whole first (new to
    /// the list, or left `received` by a drop that cut their recovery short), then those loaded or open:
    /// a thread the agent opened while the connection was lost is met only here, and every agent message
    /// in it came meanwhile, so each is news (``isUnshown(_:shown:)``).
    mutating func threadListFetched(_ ids: [String], at now: UnixTime?) -> [Action] {
        guard self.loading == .threadList else { return [] }
        var actions = self.disarm(.response)
        if let now {
            self.persisted.threadsListedAt = now
            actions.append(.store(.threadsListedAt(now)))
        }
        var new: [String] = []
        for id in ids where self.known.index(of: id) == nil {
            let thread = ChatThread(id: id, state: .received)
            self.known.append(thread)
            new.append(id)
            actions.append(.report(.threadUpdated(thread)))
        }
        actions += self.storeThreadIDs()
        if self.isRecovering {
            // First those not yet met whole: new to the list, or new after an earlier reconnect whose
            // recovery a drop cut short (still `received`; the full-size fault campaign lost such threads
            // for good). They are the ones with news. Then those met by their metadata or opened: the agent
            // may have written in any of them meanwhile.
            let recover =
                self.threads.filter { $0.state == .received }.map(\.id)
                + self.threads.filter { $0.state == .ready || $0.state == .loaded }.map(\.id)
            guard !recover.isEmpty else { return actions + self.becomeReady() }
            self.connection.modifyConnected { $0.phase = .loading(.recoveries(Set(recover.map { $0.lowercased() }))) }
            return actions + recover.map { .send(.recoverThread(threadID: $0)) } + self.arm(.response, after: self.configuration.responseTimeout)
        }
        let waiting = Set(ids.map { $0.lowercased() })
        guard !waiting.isEmpty else { return actions + self.becomeReady() }
        self.connection.modifyConnected { $0.phase = .loading(.metadata(waiting)) }
        // Threads that appeared while the daemon was away are recovered whole (first: they hold the news),
        // the others loaded by their metadata (found by the full-size fault campaign: a thread the agent
        // opened while the daemon was killed was met by its last message only, as history, and lost).
        let fresh = ids.filter(self.isFresh)
        actions += fresh.map { .send(.recoverThread(threadID: $0)) }
        actions += ids.filter { !self.isFresh($0) }.map { .send(.loadThreadMetadata(threadID: $0)) }
        return actions + self.arm(.response, after: self.configuration.responseTimeout)
    }

    mutating func threadMetadataLoaded(_ threadID: String, name: String?, lastMessage: ChatMessage?) -> [Action] {
        guard self.isSocketOpen, let index = self.known.index(of: threadID) else { return [] }
        var thread = self.known[index]
        if let name, !name.isEmpty { thread.name = name }
        var actions: [Action] = []
        if let lastMessage, !Self.isInternalMarker(lastMessage), !thread.lastMessages.contains(where: { Self.sameID($0.id, lastMessage.id) }) {
            let shown = self.persisted.shownMessages[thread.id.lowercased()]
            if self.isUnshown(lastMessage, shown: shown) {
                actions.append(.report(.messageReceived(lastMessage)))
            }
            // Met for the first time, by its last message only: the messages before it are its history,
            // no news when the thread is opened, as a single-thread channel's recovered history is not.
            actions += self.markShown([lastMessage], in: thread.id, historyThrough: shown == nil ? lastMessage.sentAt : nil)
            thread.lastMessages.append(lastMessage)
        }
        if thread.state == .received { thread.state = .loaded }
        self.known[index] = thread
        actions.insert(.report(.threadUpdated(thread)), at: 0)
        if case .metadata = self.loading { actions += self.loadingAnswered(thread.id.lowercased()) }
        return actions
    }

    /// One of the answers loading the threads waits for came: ready after the last; otherwise the
    /// response timeout starts again, since a gateway answering a thousand threads one after another (on a
    /// busy machine) is slow, not silent.
    mutating func loadingAnswered(_ key: String?) -> [Action] {
        self.connection.modifyConnected({ $0.answered(key) }) == true
            ? self.becomeReady() : self.arm(.response, after: self.configuration.responseTimeout)
    }

    // MARK: Ending

    mutating func caseStatusChanged(caseID: String, status: CaseStatus) -> [Action] {
        guard status == .closed,
            let index = self.known.index(ofCase: caseID),
            self.known[index].state != .closed
        else { return [] }
        return self.closeThread(at: index)
    }

    mutating func closeThread(at index: Int) -> [Action] {
        self.known[index].state = .closed
        var actions: [Action] = [.report(.threadUpdated(self.known[index]))]
        if self.mode == .liveChat, self.state == .ready { actions += self.enterPhase(.conversationOver) }
        return actions
    }
}
