package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

/// The chat as the channel runs it: the ``ChatStateMachine`` with what lies between it and the host, as
/// one pure value that the kit's ``SessionDriver`` drives.
///
/// Beside the machine it keeps the socket's ``ChatWireLink`` (the frames for the machine's commands, the
/// requests they answer), the ``ChatPresence``, the ``ChatContactHistory``, the thread the user works in,
/// and the user's operations (``ChatOperation``) until each is over or its deadline passes. It turns each
/// step of the machine into the driver's actions: the socket as the kit's link (opened, written and closed
/// as actions; the kit hands over only what the current socket brings), timers, REST calls and store
/// writes as ``Work``, events and log lines for the host, and the replies of the operations that step
/// settled.
package struct ChatSession: ChannelSession {
    package typealias Action = SessionAction<Timer, Work>

    package enum Timer: Hashable, Sendable {
        case machine(ChatTimerID)
        /// An operation's deadline.
        case request(UInt64)
        /// Time to refresh the customer's access token (RefreshToken), before it expires.
        case refreshToken
    }

    /// What the channel does on the host's network and store, in the order the session asked.
    package enum Work: Sendable {
        /// A REST call or a store write of the machine (the socket's and the timers' are handled here).
        case machine(ChatStateMachine.Action)
        /// GET the body of the large event at `url` (its notice, if the link still has it), and answer
        /// with ``downloaded(url:_:)``.
        case download(url: String, CXoneWire.EventInS3?)
    }

    /// What the session's frames, socket address and messages are made with.
    package struct Settings: Sendable {
        package var endpoints: CXoneEndpoints
        package var firstName: String?
        package var lastName: String?
        package var sdkVersion: String
        /// What messages call the gateway.
        package var gatewayDescription: String
        /// The largest message the socket takes (a larger one ends it).
        package var maximumMessageSize: Int
        /// How long a REST call (``ChatCall``) may take, connecting included.
        package var requestTimeout: Duration
        /// What frames and REST bodies may be.
        package var limits: CXoneWireLimits

        package init(
            endpoints: CXoneEndpoints,
            firstName: String?,
            lastName: String?,
            sdkVersion: String,
            gatewayDescription: String,
            requestTimeout: Duration = .seconds(10),
            limits: CXoneWireLimits = CXoneWireLimits()
        ) {
            self.endpoints = endpoints
            self.firstName = firstName
            self.lastName = lastName
            self.sdkVersion = sdkVersion
            self.gatewayDescription = gatewayDescription
            self.maximumMessageSize = limits.maxFrameSize * 4
            self.requestTimeout = requestTimeout
            self.limits = limits
        }
    }

    struct Request: Sendable {
        var pending: ChatOperation.Pending
        var timeout: Duration?
    }

    package var machine: ChatStateMachine
    /// Whether the channel listens, the desktop's background, the last error.
    package var presence = ChatPresence()
    package private(set) var contacts: ChatContactHistory
    /// The thread a send without a thread id goes to (multi-thread: the one created or opened last).
    package var currentThread: String?
    /// The socket has opened and not closed since (for the status).
    package private(set) var socketOpen = false
    package private(set) var framesReceived = 0
    /// Frames that could not be decoded (the channel decodes outside the lock and counts them here).
    package var framesRejected = 0
    var link = ChatWireLink()
    /// What the messages met carry beside what the host sees: their choices' answers, their files' addresses.
    package private(set) var extras = ChatMessageExtras()
    var requests: [UInt64: Request] = [:]
    /// Per thread (lower-cased id), where its older messages start: the scroll token and the oldest
    /// message's time (ChatSession+Older).
    var pages: [String: OlderPage] = [:]
    /// LoadMoreMessages sent, by `eventId`: the thread and the request waiting for the page.
    var olderRequests: [CXoneID: (threadID: String, request: UInt64)] = [:]
    /// SendTranscript sent, by `eventId`: the request waiting for TranscriptSent (ChatSession+Transcript).
    var transcriptRequests: [CXoneID: UInt64] = [:]
    /// The access token the refresh timer is set for.
    var refreshing: String?
    /// The analytics event on the network and those waiting behind it (ChatSession+Calls).
    var analytics = AnalyticsQueue.idle
    let settings: Settings

    package init(machine: ChatStateMachine, contacts: ChatContactHistory, settings: Settings) {
        self.machine = machine
        self.contacts = contacts
        self.settings = settings
    }

    /// The start of every message (the plugin's name).
    package static let prefix = "cxone-chat"
    var prefix: String { Self.prefix }

    // MARK: Events

    /// One step of the machine, with `body`; its actions become the driver's.
    package mutating func run(_ body: (inout ChatStateMachine) -> [ChatStateMachine.Action]) -> [Action] {
        self.apply(body(&self.machine))
    }

    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .machine(let id):
            return self.apply(self.machine.timerFired(id))
        case .refreshToken:
            return self.apply(self.machine.refreshToken())
        case .request(let id):
            guard let request = self.requests.removeValue(forKey: id) else { return [] }
            if let timedOut = request.pending.timedOut { return [.replied(id, timedOut(self.machine))] }
            let seconds = (request.timeout ?? .zero).components.seconds
            let error = ChannelError(
                .transient,
                "\(self.prefix): no answer from \(self.settings.gatewayDescription) within \(seconds) s (the chat is \(self.machine.state))"
            )
            return [.replied(id, .failure(error))]
        }
    }

    /// The socket opened.
    package mutating func socketOpened() -> [Action] {
        self.socketOpen = true
        return self.apply(self.machine.handle(.socketOpened))
    }

    /// The socket closed without the machine asking (`reason` is the host's: its "server" is the gateway).
    package mutating func socketClosed(reason: String) -> [Action] {
        self.socketOpen = false
        let reason = reason.hasPrefix("the server ") ? "the gateway " + reason.dropFirst("the server ".count) : reason
        let log = Action.log(.info, "\(self.prefix): the connection to \(self.settings.gatewayDescription) ended: \(reason)")
        return [log] + self.apply(self.machine.handle(.socketClosed(reason: reason)))
    }

    /// A frame from the socket, decoded: matched to the request it answers and handed to the machine.
    package mutating func received(_ inbound: CXoneInbound, now: UnixTime) -> [Action] {
        self.framesReceived += 1
        for message in inbound.receivedEvent.map(ChatWireInput.messages(in:)) ?? [] { self.note(message) }
        let older = self.olderPage(inbound) + self.transcriptAnswer(inbound)
        let (meaning, ignored) = self.link.receive(inbound, now: now)
        var actions: [Action] = []
        if let ignored { actions.append(.log(ignored.unknown ? .notice : .debug, "\(self.prefix): ignored \(ignored.text)")) }
        // Any frame is a sign of life while a pong is awaited; then what it means.
        var step = self.machine.frameArrived()
        switch meaning {
        case .input(let input): step += self.machine.handle(input)
        case .refusal(let messageID, let error, let transient):
            step += self.machine.messageRefused(messageID: messageID, error, transient: transient)
        case .nothing: break
        }
        return actions + self.apply(step) + older + self.refreshLater(now: now)
    }

    /// Sets the refresh timer for a new access token (OAuth channels get one when the customer is
    /// authorized, and a new one with each TokenRefreshed): a tenth of its life before it expires, and at
    /// least a minute before. The mobile SDK refreshes only once a token has expired, when it next sends
    /// (`SocketServiceImpl.send`, `ConnectionService.refreshToken`); refreshing before means a reconnect
    /// never meets an expired token. A refresh that fails leaves the old token, which the next
    /// ReconnectCustomer finds refused: the customer is then authorized afresh.
    mutating func refreshLater(now: UnixTime) -> [Action] {
        guard let token = self.machine.accessToken, token.value != self.refreshing, let expiresAt = token.expiresAt else { return [] }
        self.refreshing = token.value
        let remaining = expiresAt.secondsSince1970 - now.secondsSince1970
        let delay = max(1, remaining - max(60, remaining / 10))
        return [.setTimer(.refreshToken, after: .milliseconds(Int64(delay * 1000)))]
    }

    /// The large event at `url` was downloaded (or not): `input` says what came of it.
    package mutating func downloaded(url: String, _ input: ChatStateMachine.Input, messages: [CXoneWire.Message] = []) -> [Action] {
        for message in messages { self.note(message) }
        self.link.downloaded(url)
        return self.apply(self.machine.handle(input))
    }

    /// Keeps what a message carries beside what the host sees.
    mutating func note(_ message: CXoneWire.Message) {
        self.extras.note(ChatWireInput.id(message.idOnExternalPlatform), ChatWireInput.extras(of: message))
    }

    // MARK: Operations

    /// Starts `operation` as request `id`: it is over at once, or when a later step settles it, or when
    /// its timeout passes.
    package mutating func begin(_ operation: ChatOperation, id: UInt64) throws(ChannelError) -> [Action] {
        let pending: ChatOperation.Pending
        do throws(ChatError) {
            pending = try operation.begin(&self.machine, &self.currentThread)
        } catch {
            throw error.channelError()
        }
        // Waiting before its own actions are applied, so that their step may settle it (an operation over
        // once started, or a connect while ready, is settled there).
        self.requests[id] = Request(pending: pending, timeout: operation.timeout)
        let deadline = operation.timeout.map { [Action.setTimer(.request(id), after: $0)] } ?? []
        return deadline + self.apply(pending.actions)
    }

    package mutating func forgetRequest(_ id: UInt64) {
        self.requests[id] = nil
    }

    // MARK: What a step means

    /// The driver's actions for the machine's: the socket and its frames and the timers here, the rest as
    /// work in order; then what the host hears of the step, and the operations it settled.
    mutating func apply(_ actions: [ChatStateMachine.Action]) -> [Action] {
        var out: [Action] = []
        var reports: [ChatStateMachine.Report] = []
        for action in actions {
            switch action {
            case .setTimer(let id, let delay):
                out.append(.setTimer(.machine(id), after: delay))
            case .cancelTimer(let id):
                out.append(.cancelTimer(.machine(id)))
            case .openSocket(let brandID, let channelID, let visitorID, let transactionToken):
                self.dropSocket()
                let url = self.settings.endpoints.webSocket(
                    brandId: brandID,
                    channelId: channelID,
                    visitorId: CXoneID(visitorID),
                    sdkVersion: self.settings.sdkVersion,
                    transactionToken: transactionToken
                )
                out.append(.openLink(WebSocketRequest(url: url, maximumMessageSize: self.settings.maximumMessageSize)))
            case .closeSocket:
                self.dropSocket()
                out.append(.closeLink)
            case .send(let command):
                out.append(self.frame(for: command))
            case .download(let url):
                out.append(.work(.download(url: url, self.link.largeEvent(at: url))))
            case .report(let report):
                reports.append(report)
                out += self.told(report)
            case .store(let value):
                do {
                    out.append(.write(try ChatStorage.record(for: value)))
                } catch {
                    out.append(.log(.error, "\(self.prefix): could not encode the chat's \(ChatStorage.name(of: value)) to keep it: \(error)"))
                }
            case .sendAnalytics:
                // One at a time, in order (ChatSession+Calls).
                if let event = self.analytics.add(action) { out.append(.work(.machine(event))) }
            case .fetchChannelConfiguration, .fetchAvailability, .createOrUpdateVisitor, .fetchTransactionToken, .persistOutbox, .removeFromOutbox:
                out.append(.work(.machine(action)))
            }
        }
        for notice in self.presence.after(reports, machine: self.machine) {
            switch notice {
            case .reconnecting(let attempt, let reason):
                let why = reason.map { ": \($0)" } ?? ""
                out.append(
                    .log(
                        .notice,
                        "\(self.prefix): lost the connection to \(self.settings.gatewayDescription)\(why); reconnecting (attempt \(attempt))"
                    )
                )
            case .lost(let reason):
                out.append(.emit(.stoppedListening(ChannelError(.transient, "\(self.prefix): \(reason)"))))
            }
        }
        for (id, request) in self.requests.sorted(by: { $0.key < $1.key }) {
            // Still waiting (what follows a settled operation, below, may have settled this one).
            guard self.requests[id] != nil, let outcome = request.pending.settle(self.machine, reports) else { continue }
            self.requests[id] = nil
            out += self.replied(id, outcome, request)
            if case .success = outcome, let then = request.pending.then {
                out += self.apply(then(&self.machine, &self.currentThread))
            }
        }
        return out
    }

    /// The socket is let go of (the kit drops what it still brings): its requests are forgotten.
    mutating func dropSocket() {
        self.socketOpen = false
        self.link = ChatWireLink()
    }

    /// The frame for `command`, with the current identities, to write on the current socket.
    mutating func frame(for command: ChatStateMachine.Command, eventID: CXoneID = .random()) -> Action {
        guard
            let context = ChatWireOutput.Context(
                machine: self.machine,
                firstName: self.settings.firstName,
                lastName: self.settings.lastName,
                sdkVersion: self.settings.sdkVersion
            )
        else { return .log(.error, "\(self.prefix): could not send a frame before the chat is prepared") }
        do {
            return .writeLink(try self.link.frame(for: command, context: context, eventID: eventID))
        } catch {
            return .log(.error, "\(self.prefix): could not encode a frame: \(error)")
        }
    }

    /// What the host hears of a report: the contact it starts or ends first (told, then kept), then the
    /// report itself. Told first: the daemon records what a channel reported before that channel's next
    /// write lands, so a kill between the two leaves a contact the history has and the store has not (told
    /// again at the next start, which the history takes as the same contact), never the reverse, which
    /// would never be told again.
    mutating func told(_ report: ChatStateMachine.Report) -> [Action] {
        var out: [Action] = []
        let machine = self.machine
        if let change = self.contacts.note(report, threadName: { machine.thread($0)?.name }) {
            out += [.emit(change.event), .write(ChatStorage.contactRecord(threadID: change.threadID, ended: change.ended))]
        }
        switch report {
        case .stateChanged(let state):
            out += [.log(.debug, "\(self.prefix): the chat is \(state)"), .emit(.chatStateChanged(state))]
        case .threadUpdated(let thread):
            out.append(.emit(.threadUpdated(thread)))
        case .messageReceived(let message):
            out.append(.emit(.messageReceived(message)))
        case .error(let error):
            out.append(.log(.warning, "\(self.prefix): \(error.message)"))
        }
        return out
    }

    func replied(_ id: UInt64, _ outcome: ChatOperation.Outcome, _ request: Request) -> [Action] {
        (request.timeout == nil ? [] : [.cancelTimer(.request(id))]) + [.replied(id, outcome)]
    }

    // MARK: Status

    /// `chat status`: the machine's fields, the socket's and the last error.
    package func statusFields() -> [String: String] {
        var fields = self.machine.statusFields(current: self.currentThread)
        fields["gateway"] = self.settings.gatewayDescription
        fields["connected"] = self.socketOpen ? "yes" : "no"
        fields["frames-received"] = String(self.framesReceived)
        fields["frames-rejected"] = String(self.framesRejected)
        if let error = self.presence.lastError { fields["last-error"] = error.message }
        return fields
    }
}
