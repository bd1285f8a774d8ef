import AttendantPluginAPI
import CXoneCore

/// The plugin's side of the socket, as far as the benchmark goes: a ``ChatStateMachine``, frames decoded
/// and mapped with the request they answer, and the machine's actions carried out the way a driver does
/// without I/O. `send` encodes the frame (`ChatWireOutput`) and notes the request by its `eventId`; `store`
/// keeps the identity the frames carry; reports are counted; timers, REST calls and socket actions are
/// only noted (nothing answers them here).
struct BenchDriver {
    var machine: ChatStateMachine
    /// Who the frames name; updated by the machine's `store` actions.
    var context = ChatWireOutput.Context(
        brandID: GatewayFrames.brandID,
        channelID: GatewayFrames.channelID,
        customer: .init(id: ""),
        sdkVersion: "bench"
    )
    /// Requests sent and not answered yet, by `eventId`.
    var pending: [CXoneID: ChatWireInput.Request] = [:]
    /// The last command sent and its `eventId` (setup answers it).
    var lastSent: (command: ChatStateMachine.Command, eventID: CXoneID)?
    /// `eventId`s for the next commands, in order; fresh random ones once these are used up. The benchmark
    /// sets them so answers built beforehand match the requests the machine makes while timed.
    var nextEventIDs: [CXoneID] = []
    var nextEventIndex = 0
    /// The time the mapping dates tokens with; no answer here carries one.
    let now = UnixTime(secondsSince1970: 1_800_000_000)

    var messagesReceived = 0
    var bytesSent = 0
    /// Set when the machine reports `stateChanged(.ready)`.
    var readyReported = false

    init() { self.machine = ChatStateMachine() }

    // MARK: Frames in

    /// One frame from the gateway: decoded, mapped (with the request it answers) and handed to the machine.
    mutating func receive(_ frame: [UInt8]) throws -> [ChatStateMachine.Action] {
        let inbound = try CXoneInbound.decode(frame)
        let request = inbound.answeredRequestId.flatMap { self.pending.removeValue(forKey: $0) }
        let mapped = ChatWireInput.input(for: inbound, request: request, now: self.now)
        guard let input = mapped.input else {
            throw BenchError("the mapping dropped a frame: \(mapped.ignored ?? "no reason given")")
        }
        return self.machine.handle(input)
    }

    // MARK: Actions out

    /// Carries out the actions in order (see the type's comment).
    mutating func carryOut(_ actions: [ChatStateMachine.Action]) throws {
        for action in actions {
            switch action {
            case .send(let command):
                let eventID: CXoneID
                if self.nextEventIndex < self.nextEventIDs.count {
                    eventID = self.nextEventIDs[self.nextEventIndex]
                    self.nextEventIndex += 1
                } else {
                    eventID = .random()
                }
                self.bytesSent += try ChatWireOutput.frame(for: command, context: self.context, eventID: eventID).encoded().count
                if command != .heartbeat { self.pending[eventID] = ChatWireOutput.request(for: command) }
                self.lastSent = (command, eventID)
            case .store(.customerID(let id)):
                self.context.customer = .init(id: id)
            case .store(.visitorID(let id)):
                self.context.visitorID = id
            case .store(.accessToken(let token)):
                self.context.accessToken = token?.value
            case .report(.messageReceived):
                self.messagesReceived += 1
            case .report(.stateChanged(let state)):
                if state == .ready { self.readyReported = true }
            case .report(.error(let error)):
                throw BenchError("the chat machine reported an error: \(error)")
            case .report, .store:
                break  // thread updates and the other stored values: the host's and the store's business
            case .setTimer, .cancelTimer, .persistOutbox, .removeFromOutbox, .fetchChannelConfiguration, .fetchAvailability,
                .createOrUpdateVisitor, .fetchTransactionToken, .sendAnalytics, .openSocket, .closeSocket, .download:
                break
            }
        }
    }

    // MARK: Setup

    /// Steps the machine through prepare → configuration fetched → visitor stored → connect → socket
    /// opened → authorized (a ConsumerAuthorized frame answering its AuthorizeCustomer). It is then
    /// `connected`, and has sent RecoverThread (single-thread) or FetchThreadList (multi-thread).
    static func connected(multiThread: Bool, frames: GatewayFrames) throws -> BenchDriver {
        var driver = BenchDriver()
        try driver.carryOut(try driver.machine.prepare(brandID: GatewayFrames.brandID, channelID: GatewayFrames.channelID))
        try driver.carryOut(driver.machine.handle(.channelConfigurationFetched(.init(multiThread: multiThread))))
        try driver.carryOut(driver.machine.handle(.visitorStored))
        try driver.expect(.prepared, after: "the visitor was stored")
        try driver.carryOut(try driver.machine.connect())
        try driver.carryOut(driver.machine.handle(.socketOpened))
        guard let (command, eventID) = driver.lastSent, case .authorizeCustomer = command else {
            throw BenchError("the machine did not send AuthorizeCustomer once the socket opened (last sent: \(String(describing: driver.lastSent)))")
        }
        let customer = CXoneID(driver.context.customer.id)
        try driver.carryOut(try driver.receive(try frames.consumerAuthorized(answering: eventID, customer: customer)))
        try driver.expect(.connected, after: "ConsumerAuthorized")
        return driver
    }

    /// A single-thread machine brought to `ready` by a ThreadRecovered frame answering its RecoverThread.
    static func singleThreadReady(
        frames: GatewayFrames,
        thread: CXoneWire.Thread,
        contact: CXoneWire.Contact,
        earlier: [CXoneWire.Message]
    ) throws -> BenchDriver {
        var driver = try Self.connected(multiThread: false, frames: frames)
        guard let (command, eventID) = driver.lastSent, case .recoverThread = command else {
            throw BenchError("a single-thread machine did not send RecoverThread once authorized (last sent: \(String(describing: driver.lastSent)))")
        }
        try driver.carryOut(try driver.receive(try frames.threadRecovered(answering: eventID, thread: thread, contact: contact, messages: earlier)))
        try driver.expect(.ready, after: "ThreadRecovered")
        driver.readyReported = false
        return driver
    }

    func expect(_ state: ChatState, after step: String) throws {
        guard self.machine.state == state else {
            throw BenchError("after \(step) the chat machine is \(self.machine.state), expected \(state)")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
