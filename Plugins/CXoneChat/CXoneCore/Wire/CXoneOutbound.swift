/// One text frame from the client to the CXone chat gateway: built and encoded by the plugin, decoded by
/// the loopback simulator.
///
/// `{"action": "chatWindowEvent" | "register", "eventId": <uuid>, "payload": {"brand": {"id"}, "channel":
/// {"id"}, "customerIdentity" | "consumerIdentity": {...}, "eventType", "data"?, "visitor": {"id"}?,
/// "destination": {"id"}?}}`, or the heartbeat `{"action":"heartbeat"}`.
package enum CXoneOutbound: Sendable, Hashable {
    case heartbeat
    case frame(CXoneClientFrame)

    /// The heartbeat's exact text.
    package static let heartbeatText: [UInt8] = Array("{\"action\":\"heartbeat\"}".utf8)

    /// The frame's text.
    package func encoded() throws(CXoneWireError) -> [UInt8] {
        switch self {
        case .heartbeat: Self.heartbeatText
        case .frame(let frame): try CXoneWireCoding.encode(OutboundFrame(value: self), subject: "\(frame.event.eventType) frame")
        }
    }

    /// Decodes a client's frame (the simulator's side), with the same limits and errors as
    /// ``CXoneInbound/decode(_:limits:)``.
    package static func decode(_ bytes: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) throws(CXoneWireError) -> CXoneOutbound {
        try CXoneWireCoding.decode(OutboundFrame.self, from: bytes, limits: limits, subject: "client frame").value
    }
}

/// A client event with its envelope.
package struct CXoneClientFrame: Sendable, Hashable {
    /// `register` or `chatWindowEvent` (derived from the event when built here).
    package var action: String
    /// Matches the postback or operation error that answers this frame.
    package var eventId: CXoneID
    package var brandId: Int
    package var channelId: String
    /// The customer; after OAuth, the identity ConsumerAuthorized assigned.
    package var customer: CXoneWire.CustomerIdentity
    package var visitorId: CXoneID?
    /// The thread the event is about, where the service wants it at the envelope.
    package var destinationId: CXoneID?
    package var event: CXoneSentEvent

    package init(
        eventId: CXoneID = .random(),
        brandId: Int,
        channelId: String,
        customer: CXoneWire.CustomerIdentity,
        visitorId: CXoneID? = nil,
        destinationId: CXoneID? = nil,
        event: CXoneSentEvent
    ) {
        self.action = event.action
        self.eventId = eventId
        self.brandId = brandId
        self.channelId = channelId
        self.customer = customer
        self.visitorId = visitorId
        self.destinationId = destinationId
        self.event = event
    }
}

/// The Codable form of ``CXoneOutbound``.
struct OutboundFrame: Codable {
    var value: CXoneOutbound

    init(value: CXoneOutbound) { self.value = value }

    enum Keys: String, CodingKey { case action, eventId, payload }
    enum PayloadKeys: String, CodingKey { case brand, channel, customerIdentity, consumerIdentity, eventType, data, visitor, destination }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let action = try container.decode(String.self, forKey: .action)
        if action == "heartbeat", !container.contains(.payload) {
            self.value = .heartbeat
            return
        }
        let eventId = try container.decode(CXoneID.self, forKey: .eventId)
        let payload = try container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .payload)
        let eventType = try payload.decode(String.self, forKey: .eventType)
        do {
            let customer =
                try payload.decodeIfPresent(CXoneWire.CustomerIdentity.self, forKey: .customerIdentity)
                ?? payload.decode(CXoneWire.CustomerIdentity.self, forKey: .consumerIdentity)
            var frame = CXoneClientFrame(
                eventId: eventId,
                brandId: try payload.decode(CXoneWire.Brand.self, forKey: .brand).id,
                channelId: try payload.decode(CXoneWire.Channel.self, forKey: .channel).id,
                customer: customer,
                visitorId: try payload.decodeIfPresent(CXoneWire.Reference.self, forKey: .visitor)?.id,
                destinationId: try payload.decodeIfPresent(CXoneWire.Reference.self, forKey: .destination)?.id,
                event: try CXoneSentEvent.decode(eventType, from: payload, forKey: .data)
            )
            frame.action = action
            self.value = .frame(frame)
        } catch let failure as CXoneEventDataFailure {
            throw failure
        } catch {
            throw CXoneEventDataFailure(eventType: eventType, underlying: error)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        guard case .frame(let frame) = self.value else {
            try container.encode("heartbeat", forKey: .action)
            return
        }
        try container.encode(frame.action, forKey: .action)
        try container.encode(frame.eventId, forKey: .eventId)
        var payload = container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .payload)
        try payload.encode(CXoneWire.Brand(id: frame.brandId), forKey: .brand)
        try payload.encode(CXoneWire.Channel(id: frame.channelId), forKey: .channel)
        try payload.encode(frame.customer, forKey: frame.event.usesCustomerIdentityKey ? .customerIdentity : .consumerIdentity)
        try payload.encode(frame.event.eventType, forKey: .eventType)
        try frame.event.encodeData(into: &payload, forKey: .data)
        if let visitorId = frame.visitorId { try payload.encode(CXoneWire.Reference(id: visitorId), forKey: .visitor) }
        if let destinationId = frame.destinationId { try payload.encode(CXoneWire.Reference(id: destinationId), forKey: .destination) }
    }
}
