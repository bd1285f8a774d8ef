import CXoneCore
import Foundation
import Testing

/// REST bodies (channel configuration, availability, visitor, analytics events) and the URL builder.
@Suite struct WireRESTTests {
    @Test func channelConfigurationSample() throws {
        let configuration = try CXoneChannelConfiguration.decode(WireSamples.bytes("channel-configuration.json"))
        #expect(!configuration.isLiveChat)
        #expect(configuration.isAuthorizationEnabled)
        #expect(configuration.settings.hasMultipleThreadsPerEndUser)
        #expect(configuration.chatMode == .multiThread)
        #expect(configuration.settings.fileRestrictions?.allowedFileSize == 40)
        #expect(configuration.settings.fileRestrictions?.allowedFileTypes.first?.mimeType == "image/*")
        #expect(configuration.settings.isEnabled("isRecoverLivechatDoesNotFailEnabled"))
        #expect(!configuration.settings.isEnabled("liveChatLogoHidden"))
        #expect(configuration.settings.isEnabled("notListed"))
        #expect(configuration.preContactForm?.name == "Before we start")
        #expect(configuration.preContactForm?.customFields.count == 1)
        #expect(try CXoneChannelConfiguration.decode(configuration.encoded()) == configuration)
    }

    @Test func chatModes() {
        #expect(CXoneChannelConfiguration(isLiveChat: true, settings: .init(hasMultipleThreadsPerEndUser: true)).chatMode == .liveChat)
        #expect(CXoneChannelConfiguration(settings: .init(hasMultipleThreadsPerEndUser: true)).chatMode == .multiThread)
        #expect(CXoneChannelConfiguration().chatMode == .singleThread)
    }

    @Test func availabilityAndServiceError() throws {
        #expect(try CXoneAvailability.decode(WireSamples.bytes("availability.json")).isOnline)
        #expect(try !CXoneAvailability.decode(#"{"status":"offline"}"#.bytes).isOnline)
        #expect(try CXoneAvailability(isOnline: true).encoded().text == #"{"status":"online"}"#)
        let body = try CXoneServiceErrorBody(errorCode: "SdkVersionNotSupported").encoded()
        #expect(body.text == #"{"error":{"errorCode":"SdkVersionNotSupported"}}"#)
        let error = #expect(throws: CXoneWireError.self) { try CXoneAvailability.decode(body) }
        #expect(error?.code == .serviceError)
    }

    @Test func visitorAndAnalyticsBodiesRoundTrip() throws {
        let visitor = CXoneVisitor(
            customerIdentity: .init(idOnExternalPlatform: "U-1", firstName: "Pat"),
            browserFingerprint: .init(language: "en", osVersion: "12"),
            journey: .object(["referrer": .object(["url": .string("attendant://")])]),
            customVariables: [.init(identifier: "plan", value: "gold")]
        )
        let visitorText = try visitor.encoded().text
        #expect(
            visitorText.contains(
                #""browserFingerprint":{"applicationType":"native","deviceType":"desktop","language":"en","os":"Linux","osVersion":"12"}"#
            )
        )
        #expect(try CXoneVisitor.decode(visitor.encoded()) == visitor)

        let date = CXoneTimestamp.parse("2024-05-01T12:00:00.250Z")!
        let events: [CXoneWire.AnalyticsEvent] = [
            .visitorVisit(visitId: "V", destinationId: "D", at: date),
            .pageView(title: "Chat", url: "attendant://chat", visitId: "V", destinationId: "D", at: date),
            .timeSpentOnPage(title: "Chat", url: "attendant://chat", seconds: 42, visitId: "V", destinationId: "D", at: date),
            .chatWindowOpened(visitId: "V", destinationId: "D", at: date),
        ]
        #expect(events.map(\.type) == ["VisitorVisit", "PageView", "TimeSpentOnPage", "ChatWindowOpened"])
        for event in events {
            let text = try event.encoded().text
            #expect(text.contains(#""createdAtWithMilliseconds":"2024-05-01T12:00:00.250Z""#))
            #expect(text.contains(#""destination":{"id":"D"}"#))
            #expect(try CXoneWire.AnalyticsEvent.decode(event.encoded()) == event)
        }
        #expect(try events[1].encoded().text.contains(#""data":{"title":"Chat","url":"attendant://chat"}"#))
        let sample = try CXoneWire.AnalyticsEvent.decode(WireSamples.bytes("analytics-page-view.json"))
        #expect(sample.type == "PageView")
        #expect(sample.data["title"]?.string == "Chat")
    }

    @Test func endpointsForARegion() {
        let endpoints = CXoneEndpoints.region("eu1")
        #expect(endpoints.chat == "https://channels-de-eu1.niceincontact.com/chat")
        #expect(endpoints.host == "https://channels-de-eu1.niceincontact.com")
        #expect(
            endpoints.channelConfiguration(brandId: 1386, channelId: "chat_51ea")
                == "https://channels-de-eu1.niceincontact.com/chat/1.0/brand/1386/channel/chat_51ea"
        )
        #expect(
            endpoints.availability(brandId: 1386, channelId: "chat_51ea")
                == "https://channels-de-eu1.niceincontact.com/chat/1.0/brand/1386/channel/chat_51ea/availability"
        )
        #expect(
            endpoints.visitor(brandId: 1386, visitorId: "V-1")
                == "https://channels-de-eu1.niceincontact.com/web-analytics/1.0/tenants/1386/visitors/V-1"
        )
        #expect(
            endpoints.visitorEvents(brandId: 1386, visitorId: "V-1")
                == "https://channels-de-eu1.niceincontact.com/web-analytics/1.0/tenants/1386/visitors/V-1/events"
        )
        #expect(
            endpoints.webSocket(brandId: 1386, channelId: "chat_51ea", visitorId: "V-1", sdkVersion: "0.1.0")
                == "wss://chat-gateway-de-eu1.niceincontact.com?brandId=1386&channelId=chat_51ea&visitorId=V-1&sdkPlatform=linux&sdkVersion=0.1.0"
        )
    }

    @Test func configurableBasesForTheSimulator() {
        let endpoints = CXoneEndpoints(socket: "ws://127.0.0.1:4321/ws/", chat: "http://127.0.0.1:4322/chat/")
        #expect(endpoints.host == "http://127.0.0.1:4322")
        #expect(endpoints.channelConfiguration(brandId: 1, channelId: "a b/c") == "http://127.0.0.1:4322/chat/1.0/brand/1/channel/a%20b%2Fc")
        #expect(
            endpoints.webSocket(brandId: 1, channelId: "c&d", visitorId: "v", sdkVersion: "1")
                == "ws://127.0.0.1:4321/ws?brandId=1&channelId=c%26d&visitorId=v&sdkPlatform=linux&sdkVersion=1"
        )
        let explicit = CXoneEndpoints(socket: "ws://h/?token=x", chat: "http://h/chat", host: "http://analytics")
        #expect(explicit.visitor(brandId: 2, visitorId: "v") == "http://analytics/web-analytics/1.0/tenants/2/visitors/v")
        #expect(explicit.webSocket(brandId: 1, channelId: "c", visitorId: "v", sdkVersion: "1").hasPrefix("ws://h/?token=x&brandId=1"))
    }

    @Test func urlsAreLoggedWithoutQueryFragmentOrUserInformation() {
        let signed = "https://bucket.s3.eu-west-1.amazonaws.com/events/e1.json?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc123"
        #expect(CXoneEndpoints.redacted(signed) == "https://bucket.s3.eu-west-1.amazonaws.com/events/e1.json?…")
        #expect(CXoneEndpoints.redacted("http://user:secret@127.0.0.1:8080/s3/x#part") == "http://127.0.0.1:8080/s3/x?…")
        #expect(
            CXoneEndpoints.redacted("https://channels-de-eu1.niceincontact.com/chat/1.0/brand/1/channel/c")
                == "https://channels-de-eu1.niceincontact.com/chat/1.0/brand/1/channel/c"
        )
        #expect(CXoneEndpoints.redacted("wss://gateway/?visitorId=v") == "wss://gateway/?…")
    }
}
