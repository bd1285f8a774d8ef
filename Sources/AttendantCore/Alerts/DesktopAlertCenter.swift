package import AttendantPluginAPI
import Synchronization
package import Systemd

/// Shows alerts through `org.freedesktop.Notifications` on the session bus: the D-Bus side of
/// ``AlertPlanner``.
///
/// Every input (a channel event, the server appearing or vanishing, an action, a closed notification,
/// the do-not-disturb switch, a coalescing deadline) goes through one queue and is handled to the end,
/// `Notify` replies included, before the next: the planner always knows the ids of what is shown. An
/// invoked action is handed to `perform` (the channel's owner) in a task of its own, so a slow channel
/// never holds alerts back.
package final class DesktopAlertCenter: AlertPresenter {
    package static let serverName = "org.freedesktop.Notifications"
    static let serverPath = "/org/freedesktop/Notifications"
    static let serverInterface = "org.freedesktop.Notifications"

    enum Input: Sendable {
        case event(ChannelEvent, channel: String)
        case serverOwner(String?)
        case actionInvoked(id: UInt32, key: String)
        case replied(id: UInt32, text: String)
        case answered(channel: String, messageID: String)
        case closed(id: UInt32, reason: UInt32)
        case doNotDisturb(Bool, CheckedContinuation<Void, Never>?)
        case desktopDoNotDisturb(Bool, source: String)
        case signInNeeded(channel: String, message: String)
        case listening(channel: String)
        case tick
        case configuration(AlertPlanner.Configuration)
        case flush(CheckedContinuation<Void, Never>)
    }

    private let connection: BusConnection
    private let logger: Logger
    private let perform: @Sendable (AlertRoute) async -> Void
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    private let ringer: CallRinger?
    private let desktopQuiet: DesktopQuietWatcher?
    private let metrics: DaemonMetrics
    private let state: Mutex<(doNotDisturb: Bool, serverPresent: Bool)>

    /// - Parameters:
    ///   - ringer: rings while a call rings (``AlertPlanner/isRinging``); nil: calls are only seen.
    ///   - desktopQuiet: follows the desktop's own do-not-disturb; nil: only Attendant's switch counts.
    ///   - metrics: where the alert latency goes (a contact's arrival to its Notify reply).
    ///   - perform: carries out an action the user chose on a notification.
    package init(
        connection: BusConnection,
        planner: AlertPlanner,
        ringer: CallRinger? = nil,
        desktopQuiet: DesktopQuietWatcher? = nil,
        metrics: DaemonMetrics = DaemonMetrics(),
        logger: Logger,
        perform: @escaping @Sendable (AlertRoute) async -> Void
    ) {
        self.connection = connection
        self.logger = logger
        self.perform = perform
        self.ringer = ringer
        self.desktopQuiet = desktopQuiet
        self.metrics = metrics
        (self.inputs, self.continuation) = AsyncStream.makeStream()
        self.origin = self.clock.now
        self.state = Mutex((planner.doNotDisturb, false))
        self.initialPlanner = planner
    }

    private let initialPlanner: AlertPlanner

    package var doNotDisturb: Bool { self.state.withLock { $0.doNotDisturb } }
    package var notificationServerPresent: Bool { self.state.withLock { $0.serverPresent } }

    // MARK: Inputs

    package func present(_ event: ChannelEvent, channel: String) async {
        self.continuation.yield(.event(event, channel: channel))
    }

    /// Turns do-not-disturb on or off; returns once applied.
    /// The person answered a message's choice through the control interface (``AlertPlanner/answered(messageID:channel:)``).
    package func answered(channel: String, messageID: String) {
        self.continuation.yield(.answered(channel: channel, messageID: messageID))
    }

    package func setDoNotDisturb(_ on: Bool) async {
        await withCheckedContinuation { continuation in
            if case .terminated = self.continuation.yield(.doNotDisturb(on, continuation)) { continuation.resume() }
        }
    }

    /// One of the desktop's do-not-disturb switches changed (`source` names it: "KDE Plasma", "dunst", …). The
    /// desktop is quiet while any source is.
    package func setDesktopDoNotDisturb(_ on: Bool, source: String) {
        self.continuation.yield(.desktopDoNotDisturb(on, source: source))
    }

    package func signInNeeded(channel: String, message: String) {
        self.continuation.yield(.signInNeeded(channel: channel, message: message))
    }

    package func channelListening(_ channel: String) {
        self.continuation.yield(.listening(channel: channel))
    }

    package func apply(_ configuration: AlertPlanner.Configuration) {
        self.continuation.yield(.configuration(configuration))
    }

    /// Ends the loop after what is queued (graceful shutdown).
    package func finish() { self.continuation.finish() }

    /// Returns once everything queued before it has been handled (tests and benchmarks).
    package func flush() async {
        await withCheckedContinuation { continuation in
            if case .terminated = self.continuation.yield(.flush(continuation)) { continuation.resume() }
        }
    }

    // MARK: Running

    /// Watches the notification server and handles inputs until cancelled.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.watchServer() }
            group.addTask { await self.watchSignals() }
            if let ringer = self.ringer { group.addTask { await ringer.run() } }
            if let desktopQuiet = self.desktopQuiet {
                group.addTask { await desktopQuiet.run { quiet, source in self.setDesktopDoNotDisturb(quiet, source: source) } }
            }
            await self.handleInputs()
            self.ringer?.finish()
            group.cancelAll()
        }
    }

    private func watchServer() async {
        do {
            let owners = try await self.connection.signals(
                BusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: Self.serverName)
            )
            // After the match is in place, so no change can slip between the two.
            self.continuation.yield(.serverOwner(try await self.connection.nameOwner(Self.serverName)))
            for await signal in owners {
                guard signal.arguments.count == 3, signal.arguments[0].string == Self.serverName else { continue }
                let owner = signal.arguments[2].string ?? ""
                self.continuation.yield(.serverOwner(owner.isEmpty ? nil : owner))
            }
        } catch {
            self.logger.warning("cannot watch for a notification server on the \(self.connection.address): \(error); alerts are logged only")
        }
    }

    private func watchSignals() async {
        do {
            let signals = try await self.connection.signals(BusMatchRule(path: Self.serverPath, interface: Self.serverInterface))
            for await signal in signals {
                switch signal.member {
                case "ActionInvoked":
                    guard let id = signal.arguments.first?.uint32, let key = signal.arguments.dropFirst().first?.string else { continue }
                    self.continuation.yield(.actionInvoked(id: id, key: key))
                case "NotificationReplied":
                    guard let id = signal.arguments.first?.uint32, let text = signal.arguments.dropFirst().first?.string else { continue }
                    self.continuation.yield(.replied(id: id, text: text))
                case "NotificationClosed":
                    guard let id = signal.arguments.first?.uint32 else { continue }
                    self.continuation.yield(.closed(id: id, reason: signal.arguments.dropFirst().first?.uint32 ?? 4))
                default:
                    continue
                }
            }
        } catch {
            self.logger.warning("cannot receive notification actions: \(error)")
        }
    }

    private func handleInputs() async {
        var planner = self.initialPlanner
        var owner: String? = nil
        var ticker: Task<Void, Never>? = nil
        var quietSources: Set<String> = []
        var ringing = false
        // The ring follows the planner before any notification is sent, so it stops as soon as the call ends.
        func updateRing() {
            guard planner.isRinging != ringing else { return }
            ringing = planner.isRinging
            self.ringer?.ring(ringing)
        }
        for await input in self.inputs {
            let now = self.clock.now - self.origin
            var commands: [AlertCommand] = []
            switch input {
            case .event(let event, let channel):
                commands = planner.handle(event, channel: channel, now: now)
            case .serverOwner(let newOwner):
                guard newOwner != owner else { continue }
                if owner != nil {
                    planner.serverVanished()
                    self.logger.notice("notification server left the bus; alerts are kept until one returns")
                }
                owner = newOwner
                if newOwner != nil {
                    let capabilities = await self.capabilities()
                    self.logger.notice("notification server present (\(capabilities.sorted().joined(separator: ", ")))")
                    commands = planner.serverAppeared(capabilities: capabilities)
                }
                self.state.withLock { $0.serverPresent = owner != nil }
            case .actionInvoked(let id, let key):
                if let route = planner.actionInvoked(id: id, actionKey: key) {
                    self.logger.info("\(route.request) chosen on the notification of \(route.key)", metadata: ["channel": "\(route.channel)"])
                    let perform = self.perform
                    Task { await perform(route) }
                }
            case .replied(let id, let text):
                let (route, close) = planner.replied(id: id, text: text)
                if let route {
                    // What the person wrote is theirs: the log says only that they wrote.
                    self.logger.info(
                        "a reply (\(text.count) characters) typed on the notification of \(route.key)",
                        metadata: ["channel": "\(route.channel)"]
                    )
                    let perform = self.perform
                    Task { await perform(route) }
                } else {
                    self.logger.info("a reply typed on notification \(id) matches no chat notification shown now; nothing sent")
                }
                commands = close
            case .answered(let channel, let messageID):
                commands = planner.answered(messageID: messageID, channel: channel)
            case .closed(let id, let reason):
                if let route = planner.closedByServer(id: id, reason: NotificationCloseReason(reason)) {
                    self.logger.info("the notification of \(route.key) was dismissed", metadata: ["channel": "\(route.channel)"])
                    let perform = self.perform
                    Task { await perform(route) }
                }
            case .doNotDisturb(let on, let done):
                commands = planner.setDoNotDisturb(on)
                self.state.withLock { $0.doNotDisturb = on }
                self.logger.notice("do not disturb \(on ? "on: alerts are held back" : "off")")
                updateRing()
                await self.execute(commands, planner: &planner)
                done?.resume()
                commands = []
            case .desktopDoNotDisturb(let on, let source):
                guard on != quietSources.contains(source) else { continue }
                if on { quietSources.insert(source) } else { quietSources.remove(source) }
                self.logger.notice("the desktop's do not disturb (\(source)) is \(on ? "on: alerts are held back and calls not heard" : "off")")
                commands = planner.setDesktopDoNotDisturb(!quietSources.isEmpty)
            case .signInNeeded(let channel, let message):
                commands = planner.signInNeeded(channel: channel, message: message)
            case .listening(let channel):
                commands = planner.channelListening(channel: channel)
            case .tick:
                commands = planner.tick(now: now)
            case .configuration(let configuration):
                planner.configuration = configuration
            case .flush(let done):
                done.resume()
            }
            updateRing()
            await self.execute(commands, planner: &planner)
            if let deadline = planner.nextDeadline {
                ticker?.cancel()
                let wake = self.origin + deadline
                ticker = Task { [clock, continuation] in
                    do {
                        try await clock.sleep(until: wake)
                        continuation.yield(.tick)
                    } catch {}
                }
            }
        }
        ticker?.cancel()
    }

    private func capabilities() async -> Set<String> {
        do {
            let reply = try await self.connection.call(
                destination: Self.serverName,
                path: Self.serverPath,
                interface: Self.serverInterface,
                member: "GetCapabilities"
            )
            return Set(reply.first?.elements?.compactMap(\.string) ?? [])
        } catch {
            self.logger.warning("the notification server did not tell its capabilities (\(error)); offering no actions or markup")
            return []
        }
    }

    private func execute(_ commands: [AlertCommand], planner: inout AlertPlanner) async {
        var queue = commands[...]
        while let command = queue.popFirst() {
            switch command {
            case .notify(let key, let replacesID, let notification):
                var hints: [String: BusValue] = ["urgency": .byte(notification.urgency.rawValue)]
                if let sound = notification.soundName { hints["sound-name"] = .string(sound) }
                if let category = notification.category { hints["category"] = .string(category) }
                if let placeholder = notification.replyPlaceholder { hints["x-kde-reply-placeholder-text"] = .string(placeholder) }
                do {
                    let reply = try await self.connection.call(
                        destination: Self.serverName,
                        path: Self.serverPath,
                        interface: Self.serverInterface,
                        member: "Notify",
                        arguments: [
                            .string(notification.appName), .uint32(replacesID), .string(notification.appIcon),
                            .string(notification.summary), .string(notification.body), .strings(notification.actionArguments),
                            .vardict(hints), .int32(notification.expireTimeout),
                        ]
                    )
                    guard let id = reply.first?.uint32 else { continue }
                    self.metrics.alertShown(key)
                    queue.append(contentsOf: planner.shown(key: key, id: id))
                } catch {
                    self.logger.warning("could not show the alert for \(key): \(error); it is kept and shown when a notification server is back")
                }
            case .close(_, let id):
                _ = try? await self.connection.call(
                    destination: Self.serverName,
                    path: Self.serverPath,
                    interface: Self.serverInterface,
                    member: "CloseNotification",
                    arguments: [.uint32(id)]
                )
            }
        }
    }
}
