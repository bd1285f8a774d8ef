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
        let now = self.host.now()
        switch (self.configuration.apiVersion, message.channel) {
        case (2, self.configuration.serviceChannel):
            do {
                let reply = try GMSChatV2Reply(decoding: data)
                self.driver.step { $0.received(reply, now: now) }
            } catch {
                self.driver.step { $0.rejected(channel: message.channel, error) }
            }
        case (1, "/_genesys"):
            do {
                let event = try GMSChatV1Event(decoding: data)
                self.driver.step { $0.received(event, now: now) }
            } catch {
                self.driver.step { $0.rejected(channel: message.channel, error) }
            }
        default:
            self.driver.step { $0.ignored(channel: message.channel) }
        }
    }

    /// Asks GMS for every transcript event after `position`: v2 `requestNotifications` from the next
    /// position, v1 `refresh` after it. Whether the request went through.
    func requestNotifications(_ keys: GMSChatKeys, after position: Int) async -> Bool {
        if self.configuration.apiVersion == 1 { return await self.refreshV1(after: position) }
        guard let secureKey = keys.secureKey else { return false }
        var data = self.v2Operation("requestNotifications", keys: keys, secureKey: secureKey)
        data["transcriptPosition"] = .number(Double(position + 1))
        do {
            _ = try await self.bayeux.publish(self.configuration.serviceChannel, data: .object(data))
            return true
        } catch {
            self.host.logger.warning("\(self.prefix): asking \(self.serverDescription) for the chat's events after position \(position) failed: \(error); asking again once connected")
            return false
        }
    }

    /// A v2 operation's data with the chat's keys.
    func v2Operation(_ operation: String, keys: GMSChatKeys, secureKey: String) -> [String: JSONValue] {
        var data: [String: JSONValue] = ["operation": .string(operation), "secureKey": .string(secureKey)]
        if let userID = keys.userID { data["userId"] = .string(userID) }
        if let alias = keys.alias { data["alias"] = .string(alias) }
        return data
    }
}
