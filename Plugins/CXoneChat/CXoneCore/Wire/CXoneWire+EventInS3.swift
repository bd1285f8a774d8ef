extension CXoneWire {
    /// EventInS3: an event over the gateway's 128 KB limit, parked at a URL. The client GETs ``url`` and
    /// decodes the body with ``decodeOrigin(_:limits:)``; a failed download is the client's to report.
    package struct EventInS3: Sendable, Hashable, Codable {
        /// Where the event's body is; always `http` or `https` (anything else is refused while decoding).
        package var url: String
        /// The type of the event behind the URL.
        package var originEventType: String

        package init(url: String, originEventType: String) {
            self.url = url
            self.originEventType = originEventType
        }

        /// The downloaded body as the origin event (a whole frame, as the gateway would have sent it).
        package func decodeOrigin(_ body: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) throws(CXoneWireError) -> CXoneInbound {
            let inbound = try CXoneInbound.decode(body, limits: limits, subject: "EventInS3 body")
            let found = inbound.receivedEvent?.eventType
            if found == "EventInS3" {
                throw CXoneWireError(.invalidValue, "EventInS3 body \(CXoneWireCoding.size(body.count)): is itself an EventInS3")
            }
            guard let found, found == self.originEventType else {
                throw CXoneWireError(
                    .invalidValue,
                    "EventInS3 body \(CXoneWireCoding.size(body.count)): holds \(found.map(CXoneWireCoding.label) ?? "no event"), "
                        + "not the announced \(CXoneWireCoding.label(self.originEventType))"
                )
            }
            return inbound
        }

        enum CodingKeys: String, CodingKey { case s3Object, originEvent }
        enum S3Keys: String, CodingKey { case url }
        enum OriginKeys: String, CodingKey { case eventType }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let s3 = try container.nestedContainer(keyedBy: S3Keys.self, forKey: .s3Object)
            self.url = try s3.decode(String.self, forKey: .url)
            self.originEventType = try container.nestedContainer(keyedBy: OriginKeys.self, forKey: .originEvent)
                .decode(String.self, forKey: .eventType)
            let lower = self.url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), self.url.utf8.count > 8 else {
                throw CXoneInvalidValue(codingPath: s3.codingPath + [S3Keys.url], what: "is not an http or https URL")
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var s3 = container.nestedContainer(keyedBy: S3Keys.self, forKey: .s3Object)
            try s3.encode(self.url, forKey: .url)
            var origin = container.nestedContainer(keyedBy: OriginKeys.self, forKey: .originEvent)
            try origin.encode(self.originEventType, forKey: .eventType)
        }
    }
}
