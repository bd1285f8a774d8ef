/// A frame a CXone chat client sends on the gateway's WebSocket, read with the simulator's own JSON
/// (``GMSJSON``) rather than the plugin's wire types (`CXoneCore`), so that a misreading shared by both
/// sides cannot pass the tests (issue 11).
///
/// The shape, as the CXone mobile SDK sends it (seed `cxone-mobile-sdk-event-diagrams`):
/// `{"action": "chatWindowEvent", "eventId": "…", "payload": {"brand": {"id": 1386}, "channel": {"id":
/// "chat_…"}, "customerIdentity" or "consumerIdentity": {"idOnExternalPlatform": "…", …}, "eventType":
/// "SendMessage", "data": {…}, "visitor": {"id": "…"}, "destination": {"id": "…"}}}`; a heartbeat is
/// `{"action": "heartbeat"}` and has no payload.
struct SimCXoneClientFrame: Sendable, Hashable {
    var action: String
    var eventId: String
    var brandId: Int
    var channelId: String
    var eventType: String
    /// The customer identity object as sent (`idOnExternalPlatform`, `firstName`, `lastName`).
    var customer: GMSJSON
    /// The event's `data`, `.null` when absent.
    var data: GMSJSON
    var visitorId: String?
    var destinationId: String?

    var customerId: String { self.customer["idOnExternalPlatform"]?.string ?? "" }

    /// What one text frame holds.
    enum Parsed: Sendable, Hashable {
        case heartbeat
        case frame(SimCXoneClientFrame)
    }

    /// Reads one text frame; the error says what is missing, for the gateway's server-error answer.
    static func parse(_ bytes: [UInt8]) throws(SimCXoneWireError) -> Parsed {
        guard let json = GMSJSON.parse(bytes), json.object != nil else { throw SimCXoneWireError("the frame is not a JSON object") }
        guard let action = json["action"]?.string else { throw SimCXoneWireError("the frame has no action") }
        guard let payload = json["payload"], payload.object != nil else {
            if action == "heartbeat" { return .heartbeat }
            throw SimCXoneWireError("the \(action) frame has no payload")
        }
        guard let eventId = json["eventId"]?.string else { throw SimCXoneWireError("the frame has no eventId") }
        guard let eventType = payload["eventType"]?.string else { throw SimCXoneWireError("the payload has no eventType") }
        guard let brandId = payload["brand"]?["id"]?.intOrNumericString else { throw SimCXoneWireError("\(eventType): no brand.id") }
        guard let channelId = payload["channel"]?["id"]?.string else { throw SimCXoneWireError("\(eventType): no channel.id") }
        guard let customer = payload["customerIdentity"] ?? payload["consumerIdentity"],
            customer["idOnExternalPlatform"]?.string != nil
        else {
            throw SimCXoneWireError("\(eventType): no customerIdentity.idOnExternalPlatform")
        }
        return .frame(
            SimCXoneClientFrame(
                action: action,
                eventId: eventId,
                brandId: brandId,
                channelId: channelId,
                eventType: eventType,
                customer: customer,
                data: payload["data"] ?? .null,
                visitorId: payload["visitor"]?["id"]?.string,
                destinationId: payload["destination"]?["id"]?.string
            )
        )
    }
}

/// Why a client frame or body could not be read.
struct SimCXoneWireError: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
