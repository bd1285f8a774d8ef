package import FoundationEssentials

/// `PUT {host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}`: who is visiting.
package struct CXoneVisitor: CXoneRESTBody {
    package static var subject: String { "visitor" }

    package var customerIdentity: CXoneWire.CustomerIdentity?
    package var browserFingerprint: CXoneWire.DeviceFingerprint
    /// `{"referrer": {"url"}, "utm": {...}}`, passed through.
    package var journey: CXoneJSON?
    package var customVariables: [CustomVariable]?

    package init(
        customerIdentity: CXoneWire.CustomerIdentity? = nil,
        browserFingerprint: CXoneWire.DeviceFingerprint = CXoneWire.DeviceFingerprint(),
        journey: CXoneJSON? = nil,
        customVariables: [CustomVariable]? = nil
    ) {
        self.customerIdentity = customerIdentity
        self.browserFingerprint = browserFingerprint
        self.journey = journey
        self.customVariables = customVariables
    }

    package struct CustomVariable: Sendable, Hashable, Codable {
        package var identifier: String
        package var value: String
        package init(identifier: String, value: String) {
            self.identifier = identifier
            self.value = value
        }
    }
}

extension CXoneWire {
    /// An analytics event: the body of `POST {host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}/events`
    /// and an element of StoreVisitorEvents. `{"id", "type", "visitId", "destination": {"id"},
    /// "createdAtWithMilliseconds", "data"}`.
    package struct AnalyticsEvent: CXoneRESTBody {
        package static var subject: String { "analytics event" }

        package var id: CXoneID
        /// `VisitorVisit`, `PageView`, `TimeSpentOnPage`, `ChatWindowOpened`, ...
        package var type: String
        /// The visit (30 minutes, sliding with activity).
        package var visitId: CXoneID
        package var destination: Reference
        package var createdAt: Date
        package var data: CXoneJSON

        package init(id: CXoneID = .random(), type: String, visitId: CXoneID, destinationId: CXoneID, createdAt: Date, data: CXoneJSON = .object([:]))
        {
            self.id = id
            self.type = type
            self.visitId = visitId
            self.destination = Reference(id: destinationId)
            self.createdAt = createdAt
            self.data = data
        }

        /// A new visit began.
        package static func visitorVisit(visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(type: "VisitorVisit", visitId: visitId, destinationId: destinationId, createdAt: date)
        }

        /// A page (for Attendant: a view of the chat) was shown: data `{"title", "url"}`.
        package static func pageView(title: String, url: String, visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(
                type: "PageView",
                visitId: visitId,
                destinationId: destinationId,
                createdAt: date,
                data: .object(["title": .string(title), "url": .string(url)])
            )
        }

        /// A page view ended: data `{"url", "title", "timeSpentOnPage"}` (seconds).
        package static func timeSpentOnPage(
            title: String,
            url: String,
            seconds: Int,
            visitId: CXoneID,
            destinationId: CXoneID,
            at date: Date
        ) -> AnalyticsEvent {
            AnalyticsEvent(
                type: "TimeSpentOnPage",
                visitId: visitId,
                destinationId: destinationId,
                createdAt: date,
                data: .object(["title": .string(title), "url": .string(url), "timeSpentOnPage": .number(Double(seconds))])
            )
        }

        /// The chat window was opened.
        package static func chatWindowOpened(visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(type: "ChatWindowOpened", visitId: visitId, destinationId: destinationId, createdAt: date)
        }

        enum CodingKeys: String, CodingKey {
            case id, type, visitId, destination, data
            case createdAt = "createdAtWithMilliseconds"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.id = try container.decode(CXoneID.self, forKey: .id)
            self.type = try container.decode(String.self, forKey: .type)
            self.visitId = try container.decode(CXoneID.self, forKey: .visitId)
            self.destination = try container.decode(Reference.self, forKey: .destination)
            self.createdAt = try container.decode(Date.self, forKey: .createdAt)
            self.data = try container.decodeIfPresent(CXoneJSON.self, forKey: .data) ?? .object([:])
        }
    }
}
