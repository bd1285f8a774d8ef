import AttendantControl
package import AttendantPluginAPI
import Glibc
import Synchronization
package import Systemd

/// The daemon's D-Bus API (``ControlInterface``) on the session bus: status, channels, contacts,
/// accept/decline, token renewal, reload, do-not-disturb and the chat requests, and a signal for every
/// channel event.
package final class ControlBus: AlertPresenter {
    /// What the API reaches into.
    package struct Target: Sendable {
        package var fleet: ChannelFleet
        package var store: StateStore
        package var alerts: DesktopAlertCenter?
        package var linkOpener: LinkOpener?
        package var reload: @Sendable () async throws -> String
        package var version: String
        package var metrics: DaemonMetrics

        package init(
            fleet: ChannelFleet,
            store: StateStore,
            alerts: DesktopAlertCenter?,
            linkOpener: LinkOpener? = nil,
            metrics: DaemonMetrics = DaemonMetrics(),
            version: String,
            reload: @escaping @Sendable () async throws -> String
        ) {
            self.metrics = metrics
            self.fleet = fleet
            self.store = store
            self.alerts = alerts
            self.linkOpener = linkOpener
            self.version = version
            self.reload = reload
        }
    }

    private let connection: BusConnection
    private let target: Target
    private let logger: Logger
    private let wallClock: @Sendable () -> UnixTime
    private let lastStates = Mutex<[String: ChannelStatus]>([:])

    package init(connection: BusConnection, target: Target, logger: Logger, wallClock: @escaping @Sendable () -> UnixTime = SystemWallClock.now) {
        self.connection = connection
        self.target = target
        self.logger = logger
        self.wallClock = wallClock
    }

    /// Serves the interface; the caller has already claimed the bus name.
    package func export() async throws(BusError) {
        try await self.connection.export(self.object())
    }

    // MARK: Signals

    package func present(_ event: ChannelEvent, channel: String) async {
        await self.connection.emit(
            path: ControlInterface.objectPath,
            interface: ControlInterface.interface,
            member: ControlInterface.Signal.channelEvent,
            arguments: [.string(channel), .string(event.name), .vardict(Self.details(event))]
        )
        if let (member, arguments) = Self.actionSignal(event, channel: channel) {
            await self.connection.emit(path: ControlInterface.objectPath, interface: ControlInterface.interface, member: member, arguments: arguments)
        }
    }

    /// The in-app action signals: the action whole, and its will/did appear/disappear and window steps.
    static func actionSignal(_ event: ChannelEvent, channel: String) -> (String, [BusValue])? {
        let signal = ControlInterface.Signal.self
        switch event {
        case .actionReceived(let action):
            return (signal.actionReceived, [.string(channel), .string(action.id), .string(action.json)])
        case .actionLifecycle(let step):
            let member: String
            switch step.phase {
            case .windowPresented: return (signal.actionWindowPresented, [.string(channel)])
            case .windowDismissed: return (signal.actionWindowDismissed, [.string(channel)])
            case .willAppear: member = signal.actionWillAppear
            case .didAppear: member = signal.actionDidAppear
            case .willDisappear: member = signal.actionWillDisappear
            case .didDisappear: member = signal.actionDidDisappear
            default: return nil
            }
            return (member, [.string(channel), .string(step.actionID), .string(step.campaignID), .string(step.shortenID), .string(step.reason)])
        default:
            return nil
        }
    }

    /// Emits `ChannelStateChanged` for every channel whose state or detail changed since the last call.
    package func statusesChanged(_ statuses: [ChannelStatus]) async {
        let changed = self.lastStates.withLock { last -> [ChannelStatus] in
            let changed = statuses.filter { last[$0.name].map { ($0.state, $0.detail) } ?? (.stopped, "\u{0}") != ($0.state, $0.detail) }
            last = Dictionary(statuses.map { ($0.name, $0) }) { $1 }
            return changed
        }
        for status in changed {
            await self.connection.emit(
                path: ControlInterface.objectPath,
                interface: ControlInterface.interface,
                member: ControlInterface.Signal.channelStateChanged,
                arguments: [.string(status.name), .string(status.state.rawValue), .string(status.detail ?? "")]
            )
        }
    }

    static func details(_ event: ChannelEvent) -> [String: BusValue] {
        switch event {
        case .stoppedListening(let error):
            return ["Error": .string(error.message), "Code": .string("\(error.code)")]
        case .incomingContact(let contact), .contactUpdated(let contact):
            return [
                "ID": .string(contact.id), "Kind": .string(contact.kind.rawValue),
                "From": .string(contact.from.displayName.isEmpty ? contact.from.address : contact.from.displayName),
                "FromAddress": .string(contact.from.address), "Summary": .string(contact.summary),
                "ReceivedAt": .int64(contact.receivedAt.seconds), "Actions": .strings(contact.actions.map(\.id)),
            ]
        case .contactEnded(let id, let outcome):
            return ["ID": .string(id), "Outcome": .string(outcome.rawValue)]
        case .chatStateChanged(let state):
            return ["State": .string(state.rawValue)]
        case .threadUpdated(let thread):
            return ["ThreadID": .string(thread.id), "Name": .string(thread.name), "State": .string(thread.state.rawValue)]
        case .messageReceived(let message):
            var details: [String: BusValue] = [
                "ID": .string(message.id), "ThreadID": .string(message.threadID), "Direction": .string(message.direction.rawValue),
                "Kind": .string(message.kind.rawValue), "Sender": .string(message.sender.displayName), "Text": .string(message.text),
                "SentAt": .int64(message.sentAt.seconds),
            ]
            // The same encoding as a thread's messages (ChatMessageRecord).
            let record = ChatMessageRecord(message)
            if let choices = record.choices { details["Choices"] = .array(element: "a{sv}", choices.map(\.busValue)) }
            if let attachments = record.attachments { details["Attachments"] = .array(element: "a{sv}", attachments.map(\.busValue)) }
            return details
        case .actionReceived(let action):
            return [
                "ID": .string(action.id), "Campaign": .string(action.campaignID), "Shorten": .string(action.shortenID),
                "Title": .string(action.title), "Body": .string(action.body), "Links": .strings(action.links.map(\.url)),
            ]
        case .actionClosed(let id, let reason):
            return ["ID": .string(id), "Reason": .string(reason)]
        case .actionLifecycle(let step):
            return [
                "Phase": .string(step.phase.rawValue), "ID": .string(step.actionID), "Campaign": .string(step.campaignID),
                "Shorten": .string(step.shortenID), "Reason": .string(step.reason),
            ]
        @unknown default:
            return [:]
        }
    }

    // MARK: Methods

    private func object() -> BusObject {
        typealias A = BusObject.Argument
        let target = self.target
        return BusObject(
            path: ControlInterface.objectPath,
            interface: ControlInterface.interface,
            methods: [
                .init(ControlInterface.Method.getStatus, outputs: [A("status", "a{sv}")]) { _ in
                    let statuses = target.fleet.statuses
                    let record = StatusRecord(
                        version: target.version,
                        status: StatusLine.summarize(statuses),
                        pid: UInt32(getpid()),
                        doNotDisturb: target.alerts?.doNotDisturb ?? false,
                        notificationServer: target.alerts?.notificationServerPresent ?? false,
                        channels: UInt32(statuses.count),
                        listening: UInt32(statuses.filter { $0.state == .listening }.count)
                    )
                    return [record.busValue]
                },
                .init(ControlInterface.Method.listChannels, outputs: [A("channels", "aa{sv}")]) { [wallClock] _ in
                    var records: [BusValue] = []
                    for status in target.fleet.statuses {
                        var record = ChannelRecord(
                            name: status.name,
                            plugin: status.plugin,
                            state: status.state.rawValue,
                            detail: status.detail ?? "",
                            onProbation: status.onProbation,
                            failure: status.failure.map { ChannelRecord.FailureReason(rawValue: $0.rawValue) }
                        )
                        if let health = await target.fleet.supervisor(named: status.name)?.tokenHealth() {
                            let now = wallClock().seconds
                            record.tokenExpiresIn = health.expiresAt.map { $0.seconds - now }
                            record.tokenLastRenewal = health.lastRenewal?.seconds
                            record.tokenLastError = health.lastRenewalError
                            record.tokenFailures = UInt32(clamping: health.consecutiveFailures)
                        }
                        records.append(record.busValue)
                    }
                    return [.array(element: "a{sv}", records)]
                },
                .init(ControlInterface.Method.listContacts, inputs: [A("limit", "u")], outputs: [A("contacts", "aa{sv}")]) {
                    arguments throws(BusMethodError) in
                    let limit = Int(arguments.first?.uint32 ?? 50)
                    let contacts: [ContactRecord]
                    do {
                        contacts = try await target.store.recentContacts(limit: max(1, min(limit, 10_000)))
                    } catch {
                        throw BusMethodError(name: "org.freedesktop.DBus.Error.Failed", message: "cannot read the contact history: \(error)")
                    }
                    let records = contacts.map { record in
                        var entry = AttendantControl.ContactRecord(
                            channel: record.channel,
                            id: record.contact.id,
                            kind: record.contact.kind.rawValue,
                            from: record.contact.from.displayName,
                            fromAddress: record.contact.from.address,
                            summary: record.contact.summary,
                            receivedAt: record.contact.receivedAt.seconds,
                            endedAt: record.endedAt?.seconds,
                            outcome: record.outcome?.rawValue
                        )
                        entry.fromAsserted = record.contact.fromAsserted
                        entry.divertedFrom = record.contact.diversion?.from.displayName
                        entry.divertedFromAddress = record.contact.diversion?.from.address
                        entry.diversionReason = record.contact.diversion?.reason
                        return entry.busValue
                    }
                    return [.array(element: "a{sv}", records)]
                },
                .init(ControlInterface.Method.accept, inputs: [A("channel", "s"), A("contact", "s")]) { arguments throws(BusMethodError) in
                    try await Self.contactRequest(arguments, target: target) { .accept(contactID: $0) }
                    return []
                },
                .init(ControlInterface.Method.decline, inputs: [A("channel", "s"), A("contact", "s")]) { arguments throws(BusMethodError) in
                    try await Self.contactRequest(arguments, target: target) { .decline(contactID: $0) }
                    return []
                },
                .init(ControlInterface.Method.renewToken, inputs: [A("channel", "s")]) { arguments throws(BusMethodError) in
                    let name = arguments.first?.string ?? ""
                    let supervisor = try Self.supervisor(name, target: target)
                    do {
                        try await supervisor.renewToken()
                    } catch {
                        throw BusMethodError(name: ControlError.tokenRenewalFailed, message: "channel \(name): \(Self.message(error))")
                    }
                    return []
                },
                .init(ControlInterface.Method.reload, outputs: [A("status", "s")]) { _ throws(BusMethodError) in
                    do {
                        return [.string(try await target.reload())]
                    } catch {
                        throw BusMethodError(
                            name: ControlError.reloadFailed,
                            message: "the configuration was not reloaded; the daemon keeps running the previous one:\n\(error)"
                        )
                    }
                },
                .init(ControlInterface.Method.setDoNotDisturb, inputs: [A("on", "b")]) { [connection] arguments in
                    let on = arguments.first?.bool ?? false
                    await target.alerts?.setDoNotDisturb(on)
                    await connection.emit(
                        path: ControlInterface.objectPath,
                        interface: ControlInterface.interface,
                        member: ControlInterface.Signal.doNotDisturbChanged,
                        arguments: [.boolean(on)]
                    )
                    return []
                },
                .init(ControlInterface.Method.getMetrics, outputs: [A("text", "s")]) { _ in
                    [.string(target.metrics.prometheusText())]
                },
                .init(ControlInterface.Method.setURLHandler, inputs: [A("name", "s")]) { arguments throws(BusMethodError) in
                    guard let linkOpener = target.linkOpener else {
                        throw BusMethodError(name: ControlError.unsupported, message: "this attendantd opens no links")
                    }
                    let name = arguments.first?.string ?? ""
                    guard name.isEmpty || name.hasPrefix(":") || name.contains(".") else {
                        throw BusMethodError(
                            name: ControlError.invalidArgument,
                            message: "\"\(name)\" is not a D-Bus name; pass your unique name (:1.42) or a well-known one"
                        )
                    }
                    linkOpener.setHandler(name)
                    return []
                },
            ] + Self.chatMethods(target: target) + Self.answerMethods(target: target),
            signals: [
                .init(ControlInterface.Signal.channelEvent, [A("channel", "s"), A("event", "s"), A("details", "a{sv}")]),
                .init(ControlInterface.Signal.channelStateChanged, [A("channel", "s"), A("state", "s"), A("detail", "s")]),
                .init(ControlInterface.Signal.doNotDisturbChanged, [A("on", "b")]),
                .init(ControlInterface.Signal.actionReceived, [A("channel", "s"), A("action", "s"), A("json", "s")]),
            ]
                + [
                    ControlInterface.Signal.actionWillAppear, ControlInterface.Signal.actionDidAppear,
                    ControlInterface.Signal.actionWillDisappear, ControlInterface.Signal.actionDidDisappear,
                ].map { .init($0, [A("channel", "s"), A("action", "s"), A("campaign", "s"), A("shorten", "s"), A("reason", "s")]) } + [
                    .init(ControlInterface.Signal.actionWindowPresented, [A("channel", "s")]),
                    .init(ControlInterface.Signal.actionWindowDismissed, [A("channel", "s")]),
                ]
        )
    }

    static func supervisor(_ name: String, target: Target) throws(BusMethodError) -> ChannelSupervisor {
        guard let supervisor = target.fleet.supervisor(named: name) else {
            if let status = target.fleet.statuses.first(where: { $0.name == name }), status.state == .starting {
                throw BusMethodError(name: ControlError.noSuchChannel, message: "channel \"\(name)\" is starting; try again in a moment")
            }
            let running = target.fleet.runningChannels
            throw BusMethodError(
                name: ControlError.noSuchChannel,
                message: "no running channel \"\(name)\""
                    + (running.isEmpty ? "; no channel is running" : "; running: \(running.joined(separator: ", "))")
            )
        }
        return supervisor
    }

    /// Accept or decline: finds the contact's channel when none is given, then asks the channel.
    private static func contactRequest(
        _ arguments: [BusValue],
        target: Target,
        _ request: (String) -> ChannelRequest
    ) async throws(BusMethodError) {
        var channel = arguments.first?.string ?? ""
        let contact = arguments.dropFirst().first?.string ?? ""
        if channel.isEmpty {
            let recent = (try? await target.store.recentContacts(limit: 1000)) ?? []
            let owners = Set(recent.filter { $0.contact.id == contact }.map(\.channel))
            guard owners.count == 1, let owner = owners.first else {
                throw BusMethodError(
                    name: ControlError.noSuchContact,
                    message: owners.isEmpty
                        ? "no contact \"\(contact)\" in the history; see attendantctl contacts"
                        : "contact \"\(contact)\" exists on several channels (\(owners.sorted().joined(separator: ", "))); name one with --channel"
                )
            }
            channel = owner
        }
        let supervisor = try self.supervisor(channel, target: target)
        do {
            _ = try await supervisor.perform(request(contact))
        } catch let error as ChannelError where error.code == .unsupported {
            throw BusMethodError(name: ControlError.unsupported, message: "channel \(channel): \(error.message)")
        } catch {
            throw BusMethodError(name: ControlError.channelFailed, message: "channel \(channel): \(Self.message(error))")
        }
    }

    static func message(_ error: any Error) -> String {
        (error as? ChannelError)?.message ?? "\(error)"
    }
}

extension UnixTime {
    /// Whole seconds since 1970, for the control API.
    var seconds: Int64 { Int64(self.secondsSince1970.rounded(.down)) }
}
