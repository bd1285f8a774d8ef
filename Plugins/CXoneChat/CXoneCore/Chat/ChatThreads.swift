package import AttendantPluginAPI

/// The chat's threads, in the order they became known, and what the server said about each: its case
/// (contact) id, the agent assigned, the customer's place in the queue; with what the user gave a new
/// thread that has not gone out yet (the pre-chat form's answers, the welcome message).
///
/// Thread ids compare case-insensitively, as CXone's come in mixed case: the tables are keyed by the
/// lower-cased id, and a lookup by id is a table lookup, so a list of thousands of threads loads in
/// linear time. Agents and queue positions arrive by case id (CaseInboxAssigneeChanged,
/// SetPositionInQueue), possibly before the thread's case is known, and are kept by case id.
package struct ChatThreads: Sendable, Hashable {
    /// The threads, in the order they became known.
    package private(set) var all: [ChatThread] = []
    /// ``all``'s positions by lower-cased id.
    private var positions: [String: Int] = [:]
    /// Case (contact) ids by thread.
    private var caseIDs: [String: String] = [:]
    /// The agent assigned, by thread.
    private var agents: [String: Party] = [:]
    /// The agent assigned, by case id: for cases whose thread is not known yet.
    private var caseAgents: [String: Party] = [:]
    /// The customer's place in the queue, by case id.
    private var queuePositions: [String: Int] = [:]
    /// Threads whose welcome message went out (or was queued).
    private var welcomed: Set<String> = []
    /// The pre-chat form's answers, by thread, until its first message takes them.
    private var customFields: [String: [String: String]] = [:]

    package init() {}

    /// A thread by id.
    package func thread(_ id: String) -> ChatThread? {
        self.index(of: id).map { self.all[$0] }
    }

    /// A thread's position in ``all``.
    package func index(of id: String) -> Int? {
        self.positions[id.lowercased()]
    }

    /// The thread at `index`; what is set there must be the same thread (its id, in any case).
    package subscript(index: Int) -> ChatThread {
        get { self.all[index] }
        set {
            assert(ChatStateMachine.sameID(newValue.id, self.all[index].id), "a thread replaced by another thread")
            self.all[index] = newValue
        }
    }

    /// Adds a thread at the end (a second thread with the same id is listed, lookups find the first).
    package mutating func append(_ thread: ChatThread) {
        let key = thread.id.lowercased()
        if self.positions[key] == nil { self.positions[key] = self.all.count }
        self.all.append(thread)
    }

    /// Replaces the list of threads; what the server said about them stays.
    package mutating func replaceAll(with threads: [ChatThread]) {
        self.all = threads
        self.positions = [:]
        for (index, thread) in threads.enumerated() where self.positions[thread.id.lowercased()] == nil {
            self.positions[thread.id.lowercased()] = index
        }
    }

    // MARK: Cases and agents

    /// The case (contact) id of a thread, once the server told it.
    package func caseID(ofThread id: String) -> String? {
        self.caseIDs[id.lowercased()]
    }

    package mutating func setCaseID(_ caseID: String, ofThread id: String) {
        self.caseIDs[id.lowercased()] = caseID
    }

    /// The position of the thread whose case is `caseID`, if that thread is known.
    package func index(ofCase caseID: String) -> Int? {
        self.threadKey(ofCase: caseID).flatMap { self.positions[$0] }
    }

    private func threadKey(ofCase caseID: String) -> String? {
        self.caseIDs.first { ChatStateMachine.sameID($0.value, caseID) }?.key
    }

    /// The agent a thread's recovery named (nil names none and changes nothing).
    package mutating func setAgent(_ agent: Party?, ofThread id: String) {
        guard let agent else { return }
        self.agents[id.lowercased()] = agent
    }

    /// CaseInboxAssigneeChanged: the agent now assigned to a case (nil: unassigned). An assigned case
    /// is no longer queued.
    package mutating func assign(_ agent: Party?, toCase caseID: String) {
        self.caseAgents[caseID] = agent
        if agent != nil { self.queuePositions[caseID] = nil }
        if let key = self.threadKey(ofCase: caseID) { self.agents[key] = agent }
    }

    /// SetPositionInQueue; false if the case had that position already.
    package mutating func setPositionInQueue(_ position: Int, ofCase caseID: String) -> Bool {
        guard self.queuePositions[caseID] != position else { return false }
        self.queuePositions[caseID] = position
        return true
    }

    /// The agent assigned to a thread: the one its recovery or its case's assignment named.
    package func assignedAgent(ofThread id: String) -> Party? {
        let key = id.lowercased()
        return self.agents[key] ?? self.caseIDs[key].flatMap { self.caseAgents[$0] }
    }

    /// The customer's place in the queue of a thread's case.
    package func positionInQueue(ofThread id: String) -> Int? {
        self.caseIDs[id.lowercased()].flatMap { self.queuePositions[$0] }
    }

    /// Copies the thread's assigned agent and queue position into the thread (what `listThreads` shows).
    package mutating func refreshAgentSide(at index: Int) {
        let id = self.all[index].id
        self.all[index].assignedAgent = self.assignedAgent(ofThread: id)
        self.all[index].positionInQueue = self.positionInQueue(ofThread: id)
    }

    // MARK: What a new thread's first message takes

    /// Notes that the thread's welcome message went out; false if it had already.
    package mutating func markWelcomed(_ id: String) -> Bool {
        self.welcomed.insert(id.lowercased()).inserted
    }

    /// The pre-chat form's answers for a new thread's first message.
    package mutating func setCustomFields(_ fields: [String: String], ofThread id: String) {
        self.customFields[id.lowercased()] = fields.isEmpty ? nil : fields
    }

    /// Takes the thread's pre-chat form answers: they go with one message only.
    package mutating func takeCustomFields(ofThread id: String) -> [String: String] {
        self.customFields.removeValue(forKey: id.lowercased()) ?? [:]
    }
}
