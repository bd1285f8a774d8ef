package import AttendantPluginAPI
package import AttendantPluginKit

/// An event on a channel the chat subscribed to, decoded for ``GMSChatSession`` (outside its lock): v2's
/// replies and notifications arrive on `/service/chatV2/<service>`, v1's chat events on `/_genesys`.
package enum GMSChatInbound: Sendable {
    case v2(GMSChatV2Reply)
    case v1(GMSChatV1Event)
    /// On the chat's channel, but not a GMS event.
    case rejected(channel: String, GMSDecodeError)
    /// On a channel this chat does not use.
    case ignored(channel: String)

    /// v2's channel for chat service `service`.
    package static func serviceChannel(_ service: String) -> String { "/service/chatV2/\(service)" }

    /// v1's channel.
    package static let genesysChannel = "/_genesys"

    /// Decodes `data`, which arrived on `channel`, for a chat on API `apiVersion` with `service`.
    package init(channel: String, data: JSONValue, apiVersion: Int, service: String) {
        do throws(GMSDecodeError) {
            switch (apiVersion, channel) {
            case (2, Self.serviceChannel(service)): self = .v2(try GMSChatV2Reply(decoding: data))
            case (1, Self.genesysChannel): self = .v1(try GMSChatV1Event(decoding: data))
            default: self = .ignored(channel: channel)
            }
        } catch {
            self = .rejected(channel: channel, error)
        }
    }
}

extension GMSChatSession {
    /// An event on a subscribed channel.
    package mutating func received(_ inbound: GMSChatInbound, now: UnixTime) -> [Action] {
        switch inbound {
        case .v2(let reply): self.received(reply, now: now)
        case .v1(let event): self.received(event, now: now)
        case .rejected(let channel, let error): self.rejected(channel: channel, error)
        case .ignored(let channel): self.ignored(channel: channel)
        }
    }
}
