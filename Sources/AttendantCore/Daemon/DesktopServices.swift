import AttendantControl
package import AttendantPluginAPI
package import ServiceLifecycle
package import Systemd
import Synchronization

/// A value set once after construction, for parts that refer to each other (the alert center routes
/// actions to the fleet, which routes events to the alert center).
final class Late<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func set(_ newValue: Value) { self.value.withLock { $0 = newValue } }
    var get: Value? { self.value.withLock { $0 } }
}

/// Hands events to a presenter that is made later (the control bus needs the fleet, which needs the
/// router that holds this).
final class LatePresenter: AlertPresenter {
    let target = Late<any AlertPresenter>()
    func present(_ event: ChannelEvent, channel: String) async {
        await self.target.get?.present(event, channel: channel)
    }
}

/// The session-bus side of the daemon: the alert center's loop, and channel status changes turned
/// into `ChannelStateChanged` signals and sign-in alerts.
final class DesktopServices: Service {
    let alerts: DesktopAlertCenter
    let control: Late<ControlBus>
    let fleet: Late<ChannelFleet>
    private let statusChanges: AsyncStream<Void>
    private let statusContinuation: AsyncStream<Void>.Continuation

    init(alerts: DesktopAlertCenter) {
        self.alerts = alerts
        self.control = Late()
        self.fleet = Late()
        (self.statusChanges, self.statusContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Called on every channel status change (from any thread).
    func statusChanged() { self.statusContinuation.yield() }

    func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.alerts.run() }
                group.addTask { await self.followStatuses() }
            }
        } onGracefulShutdown: {
            self.alerts.finish()
            self.statusContinuation.finish()
        }
    }

    private func followStatuses() async {
        var signInShown: Set<String> = []
        for await _ in self.statusChanges {
            guard let fleet = self.fleet.get else { continue }
            let statuses = fleet.statuses
            await self.control.get?.statusesChanged(statuses)
            for status in statuses {
                if status.state == .failed, status.failure == .signInNeeded {
                    if signInShown.insert(status.name).inserted { self.alerts.signInNeeded(channel: status.name, message: status.detail ?? "") }
                } else if status.state == .listening, signInShown.remove(status.name) != nil {
                    self.alerts.channelListening(status.name)
                }
            }
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
            return route.request == "open" ? .openThread(threadID: threadID) : .custom(command: route.request, arguments: ["thread": threadID])
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
