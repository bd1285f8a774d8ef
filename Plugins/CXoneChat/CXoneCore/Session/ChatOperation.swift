package import AttendantPluginAPI

/// A user's operation on the chat, decided here and run by the driver: ``begin`` starts it in the
/// machine (under the driver's lock, with the thread the user works in), and the ``Pending`` it returns
/// says after each later step whether the operation is over and what the caller hears, or what the
/// caller hears when ``timeout`` passes first.
package struct ChatOperation {
    package typealias Outcome = Result<ChannelReply, ChannelError>

    package struct Pending: Sendable {
        package var actions: [ChatStateMachine.Action]
        /// The outcome once the machine is there; nil to keep waiting.
        package var settle: @Sendable (ChatStateMachine, [ChatStateMachine.Report]) -> Outcome?
        /// The outcome when the timeout passes; nil for the "no answer" error.
        package var timedOut: (@Sendable (ChatStateMachine) -> Outcome)?
        /// What follows once the operation succeeded, in the step that settled it (with the thread the
        /// user works in).
        package var then: (@Sendable (inout ChatStateMachine, inout String?) -> [ChatStateMachine.Action])?

        package init(
            actions: [ChatStateMachine.Action],
            settle: @escaping @Sendable (ChatStateMachine, [ChatStateMachine.Report]) -> Outcome?,
            timedOut: (@Sendable (ChatStateMachine) -> Outcome)? = nil,
            then: (@Sendable (inout ChatStateMachine, inout String?) -> [ChatStateMachine.Action])? = nil
        ) {
            self.actions = actions
            self.settle = settle
            self.timedOut = timedOut
            self.then = then
        }
    }

    /// How long the caller waits, at most; nil for an operation that is over once it started.
    package var timeout: Duration?
    /// Starts the operation; the second argument is the thread the user works in (the one created or
    /// opened last), which the operation may change.
    package var begin: (inout ChatStateMachine, inout String?) throws(ChatError) -> Pending

    package init(timeout: Duration?, begin: @escaping (inout ChatStateMachine, inout String?) throws(ChatError) -> Pending) {
        self.timeout = timeout
        self.begin = begin
    }

    /// An operation that is over as soon as it started, with `reply`.
    static func immediate(
        _ body: @escaping (inout ChatStateMachine, inout String?) throws(ChatError) -> ([ChatStateMachine.Action], ChannelReply)
    ) -> ChatOperation {
        ChatOperation(timeout: nil) { machine, current throws(ChatError) in
            let (actions, reply) = try body(&machine, &current)
            return Pending(actions: actions) { _, _ in .success(reply) }
        }
    }

    // MARK: The operations

    /// Fetches the channel configuration (and, for a live chat, the availability) and stores the visitor.
    package static func prepare(brandID: Int, channelID: String, timeout: Duration) -> ChatOperation {
        ChatOperation(timeout: timeout) { machine, _ throws(ChatError) in
            Pending(actions: try machine.prepare(brandID: brandID, channelID: channelID)) { machine, reports in
                switch machine.state {
                case .prepared: .success(.done)
                case .initial: .failure(reports.failure(otherwise: "preparing the chat failed"))
                default: nil
                }
            }
        }
    }

    /// Connects and waits until the chat is ready (authorized, threads loaded, outbox sent).
    package static func connect(channelDescription: String, timeout: Duration) -> ChatOperation {
        ChatOperation(timeout: timeout) { machine, _ throws(ChatError) in
            Pending(actions: try machine.connect()) { machine, reports in
                switch machine.state {
                case .ready, .closed:
                    return .success(.done)
                case .offline:
                    return .failure(
                        ChannelError(
                            .transient,
                            "cxone-chat: the live chat of \(channelDescription) is offline: no agent is available; it is tried again later"
                        )
                    )
                case .prepared, .initial:
                    guard reports.firstError != nil else { return nil }
                    let signIn = machine.channelConfiguration?.isAuthorizationEnabled == true
                    return .failure(reports.failure(otherwise: "connecting failed", signIn: signIn))
                default:
                    return nil
                }
            }
        }
    }

    /// Checks that the ready chat's socket still answers (the keep-alive): a heartbeat now, over when its
    /// pong comes. It fails when the chat is not ready, or stops being ready meanwhile (the socket was
    /// lost, or no pong came within the pong timeout and the machine closed it): the caller then
    /// connects again.
    package static func checkConnection(timeout: Duration) -> ChatOperation {
        ChatOperation(timeout: timeout) { machine, _ throws(ChatError) in
            Pending(actions: machine.checkConnection()) { machine, _ in
                guard machine.state == .ready || machine.state == .closed else {
                    return .failure(ChannelError(.transient, "cxone-chat: the chat is \(machine.state), not ready"))
                }
                return machine.awaitsPong ? nil : .success(.done)
            }
        }
    }

    /// Reports the page the visitor views (analytics).
    package static func viewPage(title: String, url: String, at now: UnixTime) -> ChatOperation {
        .immediate { machine, _ throws(ChatError) in (try machine.viewPage(title: title, url: url, at: now), .done) }
    }

    /// Creates a thread, which becomes the one the user works in.
    package static func createThread(customFields: [String: String]) -> ChatOperation {
        .immediate { machine, current throws(ChatError) in
            let actions = try machine.createThread(customFields: customFields)
            guard let created = machine.threads.last else { throw ChatError(.illegalChatState, "the chat is not ready") }
            current = created.id
            return (actions, .thread(created))
        }
    }

    /// Opens (recovers) a thread and replies with it once the server sent it; then it is the thread the
    /// user works in, and its messages are marked read.
    package static func openThread(_ threadID: String, timeout: Duration) -> ChatOperation {
        let key = threadID.lowercased()
        return ChatOperation(timeout: timeout) { machine, _ throws(ChatError) in
            Pending(actions: try machine.openThread(threadID: threadID)) { _, reports in
                for report in reports {
                    if case .threadUpdated(let thread) = report, thread.id.lowercased() == key { return .success(.thread(thread)) }
                }
                return reports.firstError.map { .failure($0.channelError()) }
            } then: { machine, current in
                current = key
                return machine.markRead(threadID: key)
            }
        }
    }

    /// Ends `threadID`'s conversation, or the working thread's, or else the only open one's.
    package static func endConversation(_ threadID: String?, timeout: Duration) -> ChatOperation {
        ChatOperation(timeout: timeout) { machine, current throws(ChatError) in
            let target = threadID ?? current.flatMap { machine.thread($0) }.flatMap { $0.state == .closed ? nil : $0.id }
            let key = target?.lowercased() ?? machine.threads.first { $0.state != .closed }?.id.lowercased()
            return Pending(actions: try machine.endConversation(threadID: target)) { machine, reports in
                if let key, machine.thread(key)?.state == .closed { return .success(.done) }
                return reports.firstError.map { .failure($0.channelError()) }
            }
        }
    }

    /// `markRead`: MessageSeenByCustomer for `threadID`, or the working thread. CXone marks a whole thread
    /// seen (the SDK's `ChatThreadService.markRead()`), so the messages up to the newest are; as the SDK,
    /// nothing goes out while the chat is not ready or for a thread that is pending or closed.
    package static func markRead(_ threadID: String?) -> ChatOperation {
        .immediate { machine, current throws(ChatError) in
            guard let thread = threadID ?? machine.workingThread(current: current) else {
                throw ChatError(.invalidThread, "there is no chat thread to mark read; create or open one first")
            }
            guard machine.thread(thread) != nil else {
                throw ChatError(.invalidThread, "there is no chat thread \(thread); list the threads to see which exist")
            }
            return (machine.markRead(threadID: thread), .done)
        }
    }

    /// `chat-typing`: `state` started or stopped, in `thread` or the working thread.
    package static func typing(_ arguments: [String: String]) throws(ChannelError) -> ChatOperation {
        let state = arguments["state"] ?? "started"
        guard state == "started" || state == "stopped" else {
            throw ChannelError(.illegalState, "cxone-chat: typing state \"\(state)\" is neither started nor stopped")
        }
        return .immediate { machine, current throws(ChatError) in
            guard let thread = arguments["thread"] ?? machine.workingThread(current: current) else {
                throw ChatError(.invalidThread, "there is no open chat thread to type in; create or open one first")
            }
            let actions = try machine.reportTyping(threadID: thread, started: state == "started")
            return (actions, .fields(["typing": state, "thread": thread.lowercased()]))
        }
    }

    /// Sends to `threadID`, or to the working thread; with no thread at all, one is created first.
    ///
    /// The reply's fields say what became of the message: `delivery` is `sent` once the server confirmed
    /// it (MessageCreated), or `queued` while it waits in the outbox for the next connection (the chat is
    /// reconnecting, or asleep with the desktop, or no confirmation came within `timeout`), with a
    /// `reason`; `message` and `thread` are its ids. A refusal by the server is a
    /// ``ChannelError/Code/server`` error with the server's reason
    /// (``ChatStateMachine/messageRefused(messageID:_:transient:)`` decides whether the message stays in
    /// the outbox).
    package static func sendMessage(
        _ text: String,
        to threadID: String?,
        answer: ChatStateMachine.Answer? = nil,
        attachments: [ChatStateMachine.SentFile] = [],
        at now: UnixTime,
        timeout: Duration,
        gateway: String
    ) throws(ChannelError) -> ChatOperation {
        guard !text.isEmpty || !attachments.isEmpty else { throw ChannelError(.illegalState, "cxone-chat: the message is empty") }
        return ChatOperation(timeout: timeout) { machine, current throws(ChatError) in
            var actions: [ChatStateMachine.Action] = []
            var target = threadID
            if target == nil {
                if let working = machine.workingThread(current: current) {
                    target = working
                } else if machine.state == .ready || machine.state == .closed {
                    actions += try machine.createThread()
                    target = machine.threads.last?.id
                    current = target
                } else if machine.isAsleep {
                    throw ChatError(
                        .illegalChatState,
                        "cannot start a new thread while the desktop is asleep (the chat is \(machine.state)); send again once it has resumed"
                    )
                } else {
                    throw ChatError(.illegalChatState, "cannot send a message while the chat is \(machine.state): connect first")
                }
            }
            guard let target else { throw ChatError(.invalidThread, "there is no chat thread to send to; create a thread first") }
            actions += try machine.sendMessage(threadID: target, text: text, answer: answer, attachments: attachments, at: now)
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
                        return .failure(error.channelError())
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
                    return .success(
                        queued("no confirmation from \(gateway) within \(timeout.components.seconds) s; it is sent again when the chat reconnects")
                    )
                }
            )
        }
    }
}
