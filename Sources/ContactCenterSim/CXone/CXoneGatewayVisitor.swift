package import Foundation

/// A visitor as the web-analytics endpoint received it (`PUT …/tenants/{brand}/visitors/{visitor}`):
/// `{"customerIdentity"?: {"idOnExternalPlatform", "firstName", "lastName"}, "browserFingerprint": {…},
/// "journey"?, "customVariables"?}`.
package struct CXoneGatewayVisitor: Sendable, Hashable {
    /// `customerIdentity.idOnExternalPlatform`, when the client names the customer.
    package var customerId: String? { self.body["customerIdentity"]?["idOnExternalPlatform"]?.string }
    package var firstName: String? { self.body["customerIdentity"]?["firstName"]?.string }
    package var lastName: String? { self.body["customerIdentity"]?["lastName"]?.string }
    /// The body as sent.
    var body: GMSJSON

    /// Reads a PUT body. The SDK always sends the device description (`browserFingerprint`); a body
    /// without it is not a visitor.
    static func parse(_ bytes: [UInt8]) throws(SimCXoneWireError) -> CXoneGatewayVisitor {
        guard let body = GMSJSON.parse(bytes), body.object != nil else { throw SimCXoneWireError("the visitor is not a JSON object") }
        guard body["browserFingerprint"]?.object != nil else { throw SimCXoneWireError("the visitor has no browserFingerprint object") }
        if let identity = body["customerIdentity"], identity != .null, identity["idOnExternalPlatform"]?.string == nil {
            throw SimCXoneWireError("the visitor's customerIdentity has no idOnExternalPlatform")
        }
        return CXoneGatewayVisitor(body: body)
    }
}

/// An analytics event, POSTed to `…/visitors/{visitor}/events` or sent in StoreVisitorEvents:
/// `{"id", "type", "visitId", "destination": {"id"}, "createdAtWithMilliseconds", "data"}`.
package struct CXoneGatewayAnalyticsEvent: Sendable, Hashable {
    package var id: String
    /// `VisitorVisit`, `PageView`, `TimeSpentOnPage`, `ChatWindowOpened`, …
    package var type: String
    package var visitId: String
    package var destinationId: String
    package var createdAt: Date
    /// `data` as sent (`{}` when absent).
    var data: GMSJSON

    static func parse(_ bytes: [UInt8]) throws(SimCXoneWireError) -> CXoneGatewayAnalyticsEvent {
        guard let json = GMSJSON.parse(bytes) else { throw SimCXoneWireError("the analytics event is not JSON") }
        return try self.read(json)
    }

    /// Reads one event; every member but `data` is required.
    static func read(_ json: GMSJSON) throws(SimCXoneWireError) -> CXoneGatewayAnalyticsEvent {
        guard json.object != nil else { throw SimCXoneWireError("the analytics event is not a JSON object") }
        func text(_ value: GMSJSON?, _ name: String) throws(SimCXoneWireError) -> String {
            guard let text = value?.string else { throw SimCXoneWireError("the analytics event has no \(name) string") }
            return text
        }
        let stamp = try text(json["createdAtWithMilliseconds"], "createdAtWithMilliseconds")
        guard let createdAt = SimCXoneTime.parse(stamp) else {
            throw SimCXoneWireError("the analytics event's createdAtWithMilliseconds is not an ISO 8601 timestamp")
        }
        return CXoneGatewayAnalyticsEvent(
            id: try text(json["id"], "id"),
            type: try text(json["type"], "type"),
            visitId: try text(json["visitId"], "visitId"),
            destinationId: try text(json["destination"]?["id"], "destination.id"),
            createdAt: createdAt,
            data: json["data"] ?? [:]
        )
    }
}
