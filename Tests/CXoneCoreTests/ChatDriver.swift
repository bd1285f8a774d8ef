import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import TestSupport
import Testing

/// Runs a ``ChatStateMachine`` the way the plugin will, on a virtual clock: it records what the machine
/// asks for, keeps the stored values and the outbox as a store would, keeps the timers, and fires them as
/// time is advanced. No sleeping.
struct ChatDriver {
    typealias Machine = ChatStateMachine
    typealias Action = ChatStateMachine.Action

    var machine: Machine
    /// Virtual time since the driver started.
    private(set) var now: Duration = .zero
    let epoch = UnixTime(secondsSince1970: 1_800_000_000)
    private(set) var timers: [ChatTimerID: Duration] = [:]
    /// Every action, in order.
    private(set) var actions: [Action] = []
    /// Frames sent, with the virtual time they left.
    private(set) var sent: [(at: Duration, command: Machine.Command)] = []
    private(set) var reports: [Machine.Report] = []
    /// What a store would hold: the values and the outbox.
    private(set) var stored: Machine.StoredValues
    /// The socket as the driver sees it.
    private(set) var socketOpen = false
    private(set) var socketOpens = 0
    /// What the channel tells the host after each step, when a test follows it (``ChatPresence``).
    var presence: ChatPresence?
    private(set) var notices: [ChatPresence.Notice] = []

    init(stored: Machine.StoredValues = .init(), seed: UInt64 = 7, configure: (inout Machine.Configuration) -> Void = { _ in }) {
        var configuration = Machine.Configuration()
        configure(&configuration)
        self.stored = stored
        self.machine = Machine(stored: stored, configuration: configuration, random: ChatRandom(generator: SeededRandom(seed: seed)))
    }

    var wallClock: UnixTime { self.epoch + self.now }
    var state: ChatState { self.machine.state }
    var commands: [Machine.Command] { self.sent.map(\.command) }
    var lastCommand: Machine.Command? { self.sent.last?.command }
    var timerKinds: Set<Machine.Timer> { Set(self.timers.keys.map(\.kind)) }
    var states: [ChatState] { self.reports.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } } }
    var errors: [ChatError] { self.reports.compactMap { if case .error(let e) = $0 { e } else { nil } } }
    var received: [ChatMessage] { self.reports.compactMap { if case .messageReceived(let m) = $0 { m } else { nil } } }
    var threadUpdates: [ChatThread] { self.reports.compactMap { if case .threadUpdated(let t) = $0 { t } else { nil } } }
    var analytics: [Machine.AnalyticsEvent] { self.actions.compactMap { if case .sendAnalytics(_, _, let e) = $0 { e } else { nil } } }
    var sentMessageIDs: [String] {
        self.commands.compactMap {
            switch $0 {
            case .sendMessage(_, let id, _, _), .sendOutbound(_, let id, _): id
            default: nil
            }
        }
    }

    mutating func apply(_ actions: [Action]) {
        for action in actions {
            self.actions.append(action)
            switch action {
            case .send(let command):
                #expect(self.socketOpen, "sent \(command) with the socket closed")
                self.sent.append((self.now, command))
            case .setTimer(let id, let after):
                self.timers = self.timers.filter { $0.key.kind != id.kind }
                self.timers[id] = self.now + after
            case .cancelTimer(let id):
                #expect(self.timers[id] != nil, "cancelled a timer that was not set")
                self.timers[id] = nil
            case .report(let report): self.reports.append(report)
            case .openSocket: self.socketOpens += 1
            case .closeSocket: self.socketOpen = false
            case .store(.visitorID(let id)): self.stored.visitorID = id
            case .store(.customerID(let id)): self.stored.customerID = id
            case .store(.accessToken(let token)): self.stored.accessToken = token
            case .store(.threadIDs(let ids)): self.stored.threadIDs = ids
            case .store(.shownMessages(let id, let shown)): self.stored.shownMessages[id] = shown
            case .store(.threadsListedAt(let time)): self.stored.threadsListedAt = time
            case .persistOutbox(let entry):
                #expect(!self.stored.outbox.contains { $0.messageID == entry.messageID }, "persisted \(entry.messageID) twice")
                self.stored.outbox.append(entry)
            case .removeFromOutbox(let id):
                #expect(self.stored.outbox.contains { $0.messageID == id }, "removed \(id), which is not in the outbox")
                self.stored.outbox.removeAll { $0.messageID == id }
            case .fetchChannelConfiguration, .fetchAvailability, .createOrUpdateVisitor, .fetchTransactionToken, .sendAnalytics, .download:
                break
            }
        }
        if var presence = self.presence {
            let reports = actions.compactMap { if case .report(let report) = $0 { report } else { nil } }
            self.notices += presence.after(reports, machine: self.machine)
            self.presence = presence
        }
    }

    mutating func handle(_ input: Machine.Input) {
        if case .socketOpened = input { self.socketOpen = true }
        if case .socketClosed = input { self.socketOpen = false }
        self.apply(self.machine.handle(input))
    }

    /// A user operation; its error, if it throws.
    @discardableResult
    mutating func perform(_ operation: (inout Machine) throws -> [Action]) -> ChatError? {
        do {
            self.apply(try operation(&self.machine))
            return nil
        } catch let error as ChatError {
            return error
        } catch {
            Issue.record("not a ChatError: \(error)")
            return nil
        }
    }

    /// A user operation that takes the wall-clock time.
    @discardableResult
    mutating func perform(_ operation: (inout Machine, UnixTime) throws -> [Action]) -> ChatError? {
        let now = self.wallClock
        return self.perform { machine in try operation(&machine, now) }
    }

    /// Moves the virtual clock forward, firing due timers in order.
    mutating func advance(by duration: Duration) {
        let target = self.now + duration
        while let (id, deadline) = self.timers.filter({ $0.value <= target }).min(by: { $0.value < $1.value }) {
            self.now = deadline
            self.timers[id] = nil
            self.apply(self.machine.timerFired(id))
        }
        self.now = target
    }

    func deadline(_ kind: Machine.Timer) -> Duration? {
        self.timers.first { $0.key.kind == kind }?.value
    }

    // MARK: Scripted flows

    static let brandID = 1386
    static let channelID = "chat_15bf234b-d6a8-4ffe-8c1d-f3b5b6dd3f4c"

    /// prepare → configuration → visitor → prepared.
    mutating func prepare(_ configuration: Machine.ChannelConfiguration = .init()) {
        self.perform { try $0.prepare(brandID: Self.brandID, channelID: Self.channelID) }
        self.handle(.channelConfigurationFetched(configuration))
        self.handle(.visitorStored)
    }

    /// connect → socket → ReconnectCustomer or AuthorizeCustomer answered.
    mutating func connect(identity: String = "customer-1", token: ChannelToken? = ChannelToken(value: "token-1")) {
        self.perform { try $0.connect() }
        self.handle(.socketOpened)
        self.answerAuthorization(identity: identity, token: token)
    }

    mutating func answerAuthorization(identity: String = "customer-1", token: ChannelToken? = ChannelToken(value: "token-1")) {
        if case .reconnectCustomer = self.lastCommand {
            self.handle(.reconnected)
        } else {
            self.handle(.authorized(Machine.CustomerIdentity(id: identity), accessToken: token))
        }
    }

    /// Prepared, connected and ready on a single-thread channel with `thread` recovered.
    mutating func readySingleThread(thread: ChatThread? = nil, caseID: String? = "case-1") {
        self.prepare()
        self.connect()
        if let thread {
            self.handle(.threadRecovered(thread, caseID: caseID, agent: nil))
        } else {
            self.handle(.threadRecoveryFailed(threadID: nil))
        }
    }

    func message(_ id: String, thread: String = "thread-1", from agent: Bool = true, _ text: String = "hello", at seconds: Double = 0) -> ChatMessage
    {
        ChatMessage(
            id: id,
            threadID: thread,
            direction: agent ? .fromAgent : .toAgent,
            sender: Party(displayName: agent ? "Agent" : "Me", address: agent ? "agent-1" : ""),
            text: text,
            sentAt: UnixTime(secondsSince1970: 1_800_000_000 + seconds)
        )
    }
}
