public import FoundationEssentials

/// `PUT {host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}`: who is visiting.
public struct CXoneVisitor: CXoneRESTBody {
    public static var subject: String { "visitor" }

    public var customerIdentity: CXoneWire.CustomerIdentity?
    public var browserFingerprint: CXoneWire.DeviceFingerprint
    /// `{"referrer": {"url"}, "utm": {...}}`, passed through.
    public var journey: CXoneJSON?
    public var customVariables: [CustomVariable]?

    public init(
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

    public struct CustomVariable: Sendable, Hashable, Codable {
        public var identifier: String
        public var value: String
        public init(identifier: String, value: String) {
            self.identifier = identifier
            self.value = value
        }
    }
}

extension CXoneWire {
    /// An analytics event: the body of `POST {host}/web-analytics/1.0/tenants/{brandId}/visitors/{visitorId}/events`
    /// and an element of StoreVisitorEvents. `{"id", "type", "visitId", "destination": {"id"},
    /// "createdAtWithMilliseconds", "data"}`.
    public struct AnalyticsEvent: CXoneRESTBody {
        public static var subject: String { "analytics event" }

        public var id: CXoneID
        /// `VisitorVisit`, `PageView`, `TimeSpentOnPage`, `ChatWindowOpened`, ...
        public var type: String
        /// The visit (30 minutes, sliding with activity).
        public var visitId: CXoneID
        public var destination: Reference
        public var createdAt: Date
        public var data: CXoneJSON

        public init(id: CXoneID = .random(), type: String, visitId: CXoneID, destinationId: CXoneID, createdAt: Date, data: CXoneJSON = .object([:])) {
            self.id = id
            self.type = type
            self.visitId = visitId
            self.destination = Reference(id: destinationId)
            self.createdAt = createdAt
            self.data = data
        }

        /// A new visit began.
        public static func visitorVisit(visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(type: "VisitorVisit", visitId: visitId, destinationId: destinationId, createdAt: date)
        }

        /// A page (for Attendant: a view of the chat) was shown: data `{"title", "url"}`.
        public static func pageView(title: String, url: String, visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(
                type: "PageView", visitId: visitId, destinationId: destinationId, createdAt: date,
                data: .object(["title": .string(title), "url": .string(url)])
            )
        }

        /// A page view ended: data `{"url", "title", "timeSpentOnPage"}` (seconds).
        public static func timeSpentOnPage(title: String, url: String, seconds: Int, visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(
                type: "TimeSpentOnPage", visitId: visitId, destinationId: destinationId, createdAt: date,
                data: .object(["title": .string(title), "url": .string(url), "timeSpentOnPage": .number(Double(seconds))])
            )
        }

        /// The chat window was opened.
        public static func chatWindowOpened(visitId: CXoneID, destinationId: CXoneID, at date: Date) -> AnalyticsEvent {
            AnalyticsEvent(type: "ChatWindowOpened", visitId: visitId, destinationId: destinationId, createdAt: date)
        }

        enum CodingKeys: String, CodingKey {
            case id, type, visitId, destination, data
            case createdAt = "createdAtWithMilliseconds"
        }

        public init(from decoder: any Decoder) throws {
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
