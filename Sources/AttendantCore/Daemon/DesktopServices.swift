import AttendantControl
import AttendantPluginAPI
import ServiceLifecycle
import Systemd

/// The wiring between parts of the daemon that talk back to each other, made before any of them. Each wire
/// is a stream that one part writes and a part built later reads, so the composition root builds every
/// part after what it needs and sets nothing afterwards: the alert center sends chosen actions towards
/// the fleet it cannot know, the fleet announces status changes to the controller and the desktop
/// services built after it, and the router hands events to the control bus built after it.
package struct DaemonWiring: Sendable {
    /// Actions chosen on notifications: the alert center writes, ``DesktopServices`` carries them to the fleet.
    let chosenActions = AsyncStream.makeStream(of: AlertRoute.self)
    /// Channel status changes: the fleet writes; the controller (`STATUS=`) and the desktop services
    /// (signals, sign-in alerts) each read their own. Only the newest matters.
    let controllerStatus = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let desktopStatus = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    /// Channel events for the control bus's signals: the router writes (through ``forwarder``), the
    /// desktop services hand them to the bus in order.
    let busEvents = AsyncStream.makeStream(of: (ChannelEvent, String).self)

    package init() {}

    /// Called by the fleet on every status change (from any thread).
    func statusChanged() {
        self.controllerStatus.continuation.yield()
        self.desktopStatus.continuation.yield()
    }

    /// The presenter the router hands events to for the control bus.
    var forwarder: some AlertPresenter { EventForwarder(sink: self.busEvents.continuation) }
}

/// Passes the router's events on to a stream (see ``DaemonWiring/busEvents``).
struct EventForwarder: AlertPresenter {
    let sink: AsyncStream<(ChannelEvent, String)>.Continuation
    func present(_ event: ChannelEvent, channel: String) async { self.sink.yield((event, channel)) }
}

/// The session-bus side of the daemon: the alert center's loop, and channel status changes turned
/// into `ChannelStateChanged` signals and sign-in alerts.
final class DesktopServices: Service {
    let alerts: DesktopAlertCenter
    private let fleet: ChannelFleet
    private let control: ControlBus
    private let wiring: DaemonWiring
    private let conversations: ConversationOpener
    private let logger: Logger

    init(
        alerts: DesktopAlertCenter,
        fleet: ChannelFleet,
        control: ControlBus,
        wiring: DaemonWiring,
        conversations: ConversationOpener,
        logger: Logger
    ) {
        self.alerts = alerts
        self.fleet = fleet
        self.control = control
        self.wiring = wiring
        self.conversations = conversations
        self.logger = logger
    }

    func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.alerts.run() }
                group.addTask { await self.followStatuses() }
                group.addTask { await self.performChosenActions() }
                group.addTask { await self.signalEvents() }
            }
        } onGracefulShutdown: {
            // Started first, stopped last: the channels have stopped and the router has drained.
            self.alerts.finish()
            self.wiring.desktopStatus.continuation.finish()
            self.wiring.chosenActions.continuation.finish()
            self.wiring.busEvents.continuation.finish()
        }
    }

    private func followStatuses() async {
        var signInShown: Set<String> = []
        for await _ in self.wiring.desktopStatus.stream {
            let statuses = self.fleet.statuses
            await self.control.statusesChanged(statuses)
            for status in statuses {
                if status.state == .failed, status.failure == .signInNeeded {
                    if signInShown.insert(status.name).inserted { self.alerts.signInNeeded(channel: status.name, message: status.detail ?? "") }
                } else if status.state == .listening, signInShown.remove(status.name) != nil {
                    self.alerts.channelListening(status.name)
                }
            }
        }
    }

    /// Each chosen action goes to its channel at once, beside the others (an answer command may take seconds).
    private func performChosenActions() async {
        await withDiscardingTaskGroup { group in
            for await route in self.wiring.chosenActions.stream {
                group.addTask {
                    if route.request == AlertPlanner.talkRequest, case .thread(let channel, let thread) = route.key {
                        await self.conversations.open(channel: channel, thread: thread)
                        return
                    }
                    guard let supervisor = self.fleet.supervisor(named: route.channel) else {
                        self.logger.warning("\(route.request) chosen on a notification, but channel \(route.channel) is not running")
                        return
                    }
                    do {
                        _ = try await supervisor.perform(Self.request(for: route))
                    } catch  where route.request == AlertPlanner.replyRequest {
                        // Said plainly: the person believes their answer went out.
                        self.logger.error(
                            "the reply typed on the notification of \(route.key) was not sent: \(error); send it again with attendantctl chat send",
                            metadata: ["channel": "\(route.channel)"]
                        )
                    } catch {
                        self.logger.warning("\(route.request) failed: \(error)", metadata: ["channel": "\(route.channel)"])
                    }
                }
            }
        }
    }

    private func signalEvents() async {
        for await (event, channel) in self.wiring.busEvents.stream {
            await self.control.present(event, channel: channel)
        }
    }

    /// What an action chosen on a notification asks of the channel.
    static func request(for route: AlertRoute) -> ChannelRequest {
        switch route.key {
        case .contact(_, let contactID), .missedCall(_, let contactID):
            switch route.request {
            case "accept": return .accept(contactID: contactID)
            case "decline": return .decline(contactID: contactID)
            default: return .custom(command: route.request, arguments: ["contact": contactID])
            }
        case .thread(_, let threadID):
            switch route.request {
            case "open": return .openThread(threadID: threadID)
            case AlertPlanner.replyRequest: return .sendMessage(threadID: threadID, text: route.text ?? "")
            case AlertPlanner.chooseRequest: return .choose(threadID: threadID, messageID: route.message ?? "", choiceID: route.choice ?? "")
            default: return .custom(command: route.request, arguments: ["thread": threadID])
            }
        case .inAppAction(_, let actionID):
            if route.request == "dismiss" { return .dismiss(actionID: actionID) }
            var arguments = ["action": actionID]
            if let link = route.link { arguments["url"] = link.url }
            return .custom(command: route.request, arguments: arguments)
        case .signIn:
            return .custom(command: route.request, arguments: [:])
        }
    }
}
