import AttendantPluginAPI
import AttendantPluginKit
import GMSBayeux
import GMSCore
import Synchronization

// What the Bayeux session reports, and the chat events it delivers, for the chat session.
extension GMSChatChannel {
    func bayeuxEvent(_ event: BayeuxClient.Event) {
        switch event {
        case .handshook:
            self.driver.step { $0.handshook() }
        case .connected:
            let type = self.bayeux.status.machine.connectionType.rawValue
            self.driver.step { $0.connected(over: type) }
        case .interrupted(let failure):
            self.driver.step { $0.interrupted(failure.description) }
        case .transportChanged(let type):
            self.driver.step { $0.transportChanged(to: type.rawValue) }
        case .delivered(let message):
            self.delivered(message)
        case .stopped(let failure):
            self.driver.step { $0.stopped(failure?.description) }
        }
    }

    /// An event on a subscribed channel, decoded here (outside the lock) for the session.
    func delivered(_ message: BayeuxMessage) {
        guard let data = message.data else { return }
        let inbound = GMSChatInbound(
            channel: message.channel,
            data: data,
            apiVersion: self.configuration.apiVersion,
            service: self.configuration.service
        )
        let now = self.host.now()
        self.driver.step { $0.received(inbound, now: now) }
    }

    /// A v1 event the chat's REST answers carry, for the session.
    func received(_ event: GMSChatV1Event) {
        let now = self.host.now()
        self.driver.step { $0.received(event, now: now) }
    }

    /// Asks GMS for every transcript event after `position`: v2 `requestNotifications` from the next
    /// position, v1 `refresh` after it. Whether the request went through.
    func requestNotifications(_ keys: GMSChatKeys, after position: Int) async -> Bool {
        do throws(ChannelError) {
            if self.configuration.apiVersion == 1 {
                guard let serviceID = keys.serviceID else { return false }
                self.received(try await self.v1.refresh(serviceID: serviceID, after: position))
            } else {
                guard let data = GMSChatV2Operation.requestNotifications(keys: keys, after: position) else { return false }
                try await self.publish(data, what: "asking for the chat's events after position \(position) from")
            }
            return true
        } catch {
            self.host.logger.warning("\(error.message); asking again once connected")
            return false
        }
    }
}
