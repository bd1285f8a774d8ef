import AttendantControl
import Glibc
import Systemd
import UnixSignals

/// `chat talk`'s I/O: the terminal, the daemon's signals and requests around a ``TalkView``. Every
/// decision is the view's; this only turns keys, signals and answers into its events and its actions into
/// requests, and draws.
struct TalkSession {
    let client: ControlClient
    let channel: String

    /// How a session ended.
    enum Ending: Sendable {
        /// The person left (Ctrl-D, Ctrl-C, /quit) or a signal ended it (SIGTERM, SIGINT).
        case left
        /// The terminal went away (SIGHUP, end of input): nothing more is written to it.
        case hungUp
        /// The bus connection closed.
        case busClosed
    }

    enum Event: Sendable {
        case input([UInt8])
        case inputEnded
        case signal(ControlSignal)
        case signalsEnded
        case daemonRunning(Bool)
        case unixSignal(UnixSignal)
        case tick
        case sent(String, Result<[String: String], ControlClientError>)
        case typingRefused(ControlClientError)
        case reopened(ChatThreadRecord)
        /// A choice's label, and the channel's refusal if it refused.
        case chose(String, ControlClientError?)
        case readRefused(ControlClientError)
        case older(Result<ChatThreadRecord, ControlClientError>)
        /// The attachment's name, and where it was saved.
        case saved(String, Result<(path: String, mimeType: String, size: Int64), ControlClientError>)
        /// The path as typed, and what was sent.
        case fileSent(String, Result<(name: String, mimeType: String, size: Int64, message: String?), ControlClientError>)
    }

    /// The thread the view shows: the one named, else the channel's only open thread, else none (what is
    /// sent first starts one, as `chat send` does). Several open threads without --thread is an error.
    static func thread(_ client: ControlClient, channel: String, named: String?) async throws(ControlClientError) -> ChatThreadRecord? {
        if let named { return try await client.chatOpenThread(channel: channel, thread: named) }
        let open = try await client.chatThreads(channel: channel).filter { $0.state != "closed" }
        guard open.count <= 1 else {
            throw ControlClientError(
                code: .failed,
                message: "\(channel) has several open threads (\(open.map(\.id).joined(separator: ", "))); name one with --thread"
            )
        }
        guard let only = open.first else { return nil }
        return try await client.chatOpenThread(channel: channel, thread: only.id)
    }

    /// Runs the view on the terminal until the person leaves; the terminal is restored on every way out.
    /// `signals` and `running` must have been asked for before `thread` was read, so nothing after it is missed.
    func run(
        thread: ChatThreadRecord?,
        signals: AsyncCompactMapSequence<AsyncStream<BusSignal>, ControlSignal>,
        running: AsyncCompactMapSequence<AsyncStream<BusSignal>, Bool>
    ) async -> Ending {
        tzset()
        let today = LocalTime.now()
        var view = TalkView(channel: self.channel, thread: thread, size: RawTerminal.size()) { time in
            TranscriptLayout.clock(time, today: today)
        }
        // The handlers are in place before raw mode, so a SIGTERM or SIGHUP from now on ends the view
        // through the restore below instead of killing the process with the terminal raw.
        let unixSignals = await UnixSignalsSequence(trapping: .sigterm, .sighup, .sigint, .sigwinch)
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let input = TerminalInput()
        guard RawTerminal.enter() else { return .hungUp }
        defer { RawTerminal.restore() }
        input.start()
        defer { input.stop() }

        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await chunk in input.chunks { sink.yield(.input(chunk)) }
                sink.yield(.inputEnded)
            }
            group.addTask {
                for await signal in signals { sink.yield(.signal(signal)) }
                sink.yield(.signalsEnded)
            }
            group.addTask {
                for await isRunning in running { sink.yield(.daemonRunning(isRunning)) }
            }
            group.addTask {
                for await signal in unixSignals { sink.yield(.unixSignal(signal)) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    sink.yield(.tick)
                }
            }
            defer { group.cancelAll() }

            var decoder = KeyDecoder()
            guard RawTerminal.draw(view.frame()) else { return .hungUp }
            if let receipt = view.readReceipt() { self.carryOut(receipt, in: &group, sink: sink) }
            for await event in events {
                var actions: [TalkView.Action] = []
                var draw = true
                switch event {
                case .input(let bytes):
                    for key in decoder.feed(bytes) {
                        actions += view.key(key, now: .now, time: LocalTime.now())
                    }
                case .inputEnded:
                    return .hungUp
                case .signal(let signal):
                    draw = self.apply(signal, to: &view)
                case .signalsEnded:
                    return .busClosed
                case .daemonRunning(let isRunning):
                    if isRunning {
                        view.note("attendantd is running again.", time: LocalTime.now())
                        if let thread = view.threadID {
                            group.addTask { [client, channel] in
                                if let record = try? await client.chatOpenThread(channel: channel, thread: thread) { sink.yield(.reopened(record)) }
                            }
                        }
                    } else {
                        view.problem("attendantd stopped; what you send fails until it runs again.", time: LocalTime.now())
                    }
                case .unixSignal(let signal):
                    switch signal {
                    case .sigwinch: view.resized(RawTerminal.size())
                    case .sighup: return .hungUp
                    default: actions += [.quit]
                    }
                case .tick:
                    let typing = view.agentTyping
                    actions += view.tick(now: .now)
                    draw = !actions.isEmpty || view.agentTyping != typing
                case .sent(let text, .success(let delivery)):
                    view.sendAnswered(
                        text: text,
                        delivery: delivery["delivery"],
                        message: delivery["message"],
                        reason: delivery["reason"],
                        error: nil,
                        time: LocalTime.now()
                    )
                case .sent(let text, .failure(let error)):
                    view.sendAnswered(text: text, delivery: nil, reason: nil, error: error.message, time: LocalTime.now())
                case .typingRefused(let error):
                    view.typingRefused(unsupported: error.name == ControlError.unsupported)
                    draw = false
                case .reopened(let record):
                    for message in record.lastMessages { view.message(message, now: .now) }
                    view.threadUpdated(id: record.id, name: record.name, state: record.state, time: LocalTime.now())
                case .chose(let label, let error):
                    view.chooseAnswered(label: label, error: error?.message, time: LocalTime.now())
                case .readRefused(let error):
                    view.readRefused(unsupported: error.name == ControlError.unsupported)
                    draw = false
                case .older(.success(let record)):
                    view.olderLoaded(record.lastMessages)
                case .older(.failure(let error)):
                    view.olderFailed(error.message, unsupported: error.name == ControlError.unsupported, time: LocalTime.now())
                case .saved(_, .success(let saved)):
                    view.saved(path: saved.path, mimeType: saved.mimeType, size: saved.size, time: LocalTime.now())
                case .saved(let name, .failure(let error)):
                    view.notSaved(name: name, error: error.message, time: LocalTime.now())
                case .fileSent(_, .success(let sent)):
                    view.fileSent(name: sent.name, mimeType: sent.mimeType, size: sent.size, message: sent.message, time: LocalTime.now())
                case .fileSent(let path, .failure(let error)):
                    view.fileNotSent(path: path, error: error.message, time: LocalTime.now())
                }
                for action in actions {
                    if case .quit = action { return .left }
                    self.carryOut(action, in: &group, sink: sink)
                }
                if draw {
                    // What is on the screen now has been seen.
                    if let receipt = view.readReceipt() { self.carryOut(receipt, in: &group, sink: sink) }
                    if !RawTerminal.draw(view.frame()) { return .hungUp }
                }
            }
            return .busClosed
        }
    }

    /// A daemon signal for the view; whether it changed what is shown.
    private func apply(_ signal: ControlSignal, to view: inout TalkView) -> Bool {
        switch signal {
        case .channelEvent(let channel, let event, let details) where channel == self.channel:
            switch event {
            case "message-received":
                var message = ChatMessageRecord(
                    id: details["ID"]?.string ?? "",
                    threadID: details["ThreadID"]?.string ?? "",
                    kind: details["Kind"]?.string ?? "message",
                    direction: details["Direction"]?.string ?? "",
                    sender: details["Sender"]?.string ?? "",
                    text: details["Text"]?.string ?? "",
                    sentAt: details["SentAt"]?.int64 ?? LocalTime.now()
                )
                // The same encoding as a thread's messages (ChatMessageRecord).
                message.choices = details["Choices"]?.elements.map { $0.compactMap(ChatChoiceRecord.init) }
                message.attachments = details["Attachments"]?.elements.map { $0.compactMap(ChatAttachmentRecord.init) }
                view.message(message, now: .now)
                return true
            case "thread-updated":
                view.threadUpdated(
                    id: details["ThreadID"]?.string ?? "",
                    name: details["Name"]?.string ?? "",
                    state: details["State"]?.string ?? "",
                    time: LocalTime.now()
                )
                return true
            default:
                return false
            }
        case .channelStateChanged(let channel, let state, let detail) where channel == self.channel:
            view.channelState(state, detail: detail)
            return true
        default:
            return false
        }
    }
}
