import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// The chat's replays: the session asks for the chat's events after a position, and v1's answers carry them.
extension GMSChatChannel {
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
                self.received(try self.http.refreshed(try await self.post(.refresh(serviceID: serviceID, after: position)), serviceID: serviceID))
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
