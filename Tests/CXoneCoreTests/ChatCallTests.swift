import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Testing

/// ``ChatCall``, the CXone chat's REST calls with no network: the requests as the mobile SDK makes them,
/// and how each answer (or failure) is read into the session's next step.
@Suite struct ChatCallTests {
    static let settings = ChatSessionStepTests.settings
    static let now = ChatDriver().wallClock

    static func call(_ action: ChatStateMachine.Action) throws -> ChatCall {
        try #require(ChatCall.making(action, settings: Self.settings)).get()
    }

    static func answer(_ status: Int, _ reason: String = "", _ body: String) -> Result<NetworkResponse, NetworkError> {
        .success(NetworkResponse(status: status, reason: reason, body: Array(body.utf8)))
    }

    @Test func theRequestsAreTheSDKsWithoutCookiesAndWithinTheFrameLimit() throws {
        let configuration = try Self.call(.fetchChannelConfiguration(brandID: 1386, channelID: "chat_1"))
        #expect(configuration.request.method == "GET")
        #expect(configuration.request.url == "https://chat.example.com/1.0/brand/1386/channel/chat_1")
        #expect(configuration.request.headers == [NetworkHeader("Accept", "application/json")])
        #expect(!configuration.request.usesCookies)
        #expect(configuration.request.maximumResponseSize == CXoneWireLimits().maxFrameSize + 1)
        #expect(configuration.request.timeout == .seconds(10))

        let visitor = try Self.call(.createOrUpdateVisitor(brandID: 1386, visitorID: "v-1", customerID: "c-1"))
        #expect(visitor.request.method == "PUT")
        #expect(visitor.request.url.hasSuffix("/web-analytics/1.0/tenants/1386/visitors/v-1"))
        #expect(visitor.request.headers.contains(NetworkHeader("Content-Type", "application/json")))
        let body = String(decoding: try #require(visitor.request.body), as: UTF8.self)
        #expect(body.contains("\"idOnExternalPlatform\":\"c-1\"") && body.contains("\"firstName\":\"Ada\""))

        #expect(ChatCall.making(.removeFromOutbox(messageID: "m-1"), settings: Self.settings) == nil, "not a REST call")
        #expect(!visitor.isAnalytics)
    }

    @Test func aFetchedConfigurationIsTheMachinesInput() throws {
        var session = ChatSessionStepTests.session()
        _ = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 1)
        let call = try Self.call(.fetchChannelConfiguration(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID))
        let body = #"{"isLiveChat": false, "isAuthorizationEnabled": false, "settings": {"hasMultipleThreadsPerEndUser": true}}"#
        let actions = ChatSessionStepTests.words(call.step(Self.answer(200, "OK", body), now: Self.now)(&session))
        #expect(actions.contains("machine createOrUpdateVisitor"), "the preparation goes on to the visitor: \(actions)")
        #expect(session.machine.mode == .multiThread)
    }

    @Test func failuresNameTheCallTheURLAndWhatCameBack() throws {
        let availability = try Self.call(.fetchAvailability(brandID: 1386, channelID: "chat_1"))
        let url = "https://chat.example.com/1.0/brand/1386/channel/chat_1/availability"
        #expect(
            availability.body(Self.answer(503, "Service Unavailable", "busy\n")).failure?.message
                == "could not fetch the live chat's availability: GET \(url) answered 503 Service Unavailable (busy)"
        )
        #expect(
            availability.body(.failure(NetworkError(.connection, "GET \(url) failed: refused"))).failure?.message
                == "could not fetch the live chat's availability: GET \(url) failed: refused"
        )
        let refused = availability.body(
            Self.answer(400, "Bad Request", #"{"error": {"errorCode": "SdkVersionNotSupported", "errorMessage": "too old"}}"#)
        )
        #expect(refused.failure?.serverCode == "SdkVersionNotSupported")
        #expect(
            refused.failure?.message.hasSuffix("too old; the chat server does not accept this client's SDK version (test-1): update Attendant")
                == true
        )
    }

    @Test func anAttachmentsSignatureIsNeverShownAndItsLimitIsNamed() throws {
        let call = ChatCall.attachment("https://files.example.com/a.png?X-Amz-Signature=secret", limit: 100, settings: Self.settings)
        #expect(call.request.maximumResponseSize == 100)
        #expect(call.request.headers == [NetworkHeader("Accept", "*/*")])
        let tooLarge = call.body(.failure(NetworkError(.tooLarge, "too large"))).failure?.message
        #expect(
            tooLarge
                == "could not fetch an attachment: GET https://files.example.com/a.png?… answered more than 100 bytes (the attachment is larger than max-attachment-size)"
        )
        let missing = try #require(call.body(Self.answer(404, "Not Found", "")).failure?.message)
        #expect(!missing.contains("secret"))
        #expect(try call.body(Self.answer(200, "OK", "png")).get() == Array("png".utf8))
    }

    @Test func aFailedAnalyticsEventIsAWarningAndNothingMore() throws {
        let call = try Self.call(
            .sendAnalytics(brandID: 1386, visitorID: "v-1", .pageView(visitID: "visit-1", title: "Desk", url: "https://example.com", at: Self.now))
        )
        #expect(call.isAnalytics)
        #expect(call.request.method == "POST" && call.request.url.hasSuffix("/visitors/v-1/events"))
        var session = ChatSessionStepTests.session()
        let failed = ChatSessionStepTests.words(call.step(Self.answer(500, "Internal Server Error", ""), now: Self.now)(&session))
        #expect(failed.count == 1)
        #expect(failed.first?.hasPrefix("warning cxone-chat: could not send a PageView analytics event: POST") == true, "\(failed)")
        #expect(call.step(Self.answer(202, "Accepted", ""), now: Self.now)(&session).isEmpty)
    }

    @Test func aFileIsUploadedAsTheSDKDoesAndARefusalSaysWhatTheChannelTakes() throws {
        let file = ChatFile(name: "receipt.png", mimeType: "image/png", bytes: [1, 2, 3])
        let call = try ChatCall.upload(file, brandID: 1386, channelID: "chat_1", settings: Self.settings).get()
        #expect(call.request.method == "POST")
        #expect(call.request.url == "https://chat.example.com/1.0/brand/1386/channel/chat_1/attachment")
        let body = String(decoding: try #require(call.request.body), as: UTF8.self)
        #expect(
            body.contains(#""content":"AQID""#) && body.contains(#""fileName":"receipt.png""#) && body.contains(#""mimeType":"image/png""#),
            "\(body)"
        )

        let kept = try call.uploaded(Self.answer(200, "OK", #"{"fileUrl": "https://files.example.com/f-1"}"#)).get()
        #expect(kept == ChatStateMachine.SentFile(url: "https://files.example.com/f-1", name: "receipt.png", mimeType: "image/png"))

        // The SDK's AttachmentUploadFailResponseDTO, with a 2xx status.
        let refusal =
            #"{"allowedFileSize": "5", "allowedFileTypes": [{"mimeType": "application/pdf", "description": "PDF"}], "isAttachmentsEnabled": true}"#
        #expect(
            call.uploaded(Self.answer(200, "OK", refusal)).failure?.message
                == "cxone-chat: wss://gateway refused receipt.png: it takes application/pdf, at most 5 MB each"
        )
        #expect(call.uploaded(Self.answer(200, "OK", "{}")).failure?.code == .server)
        #expect(call.uploaded(Self.answer(413, "Payload Too Large", "")).failure?.code == .server)
    }

    @Test func theChannelsRestrictionsAreCheckedAsTheSDKChecksThemSizeFirst() {
        let restrictions = ChatStateMachine.FileRestrictions(isEnabled: true, maximumMegabytes: 1, mimeTypes: ["image/*", "application/pdf"])
        #expect(restrictions.refusal(name: "a.png", mimeType: "image/png", size: 1 << 20) == nil)
        #expect(restrictions.refusal(name: "a.pdf", mimeType: "Application/PDF; name=a.pdf", size: 10) == nil)
        #expect(
            restrictions.refusal(name: "a.png", mimeType: "image/png", size: (1 << 20) + 1)
                == "a.png has 1048577 bytes; the channel takes files of at most 1 MB"
        )
        #expect(
            restrictions.refusal(name: "a.txt", mimeType: "text/plain", size: 10)
                == "a.txt is of type text/plain; the channel takes image/*, application/pdf"
        )
        #expect(restrictions.refusal(name: "a.txt", mimeType: "imagery/x", size: 10) != nil, "a wildcard covers its own type only")
        let off = ChatStateMachine.FileRestrictions(isEnabled: false, maximumMegabytes: 1, mimeTypes: ["image/*"])
        #expect(off.refusal(name: "a.png", mimeType: "image/png", size: 1) == "the channel does not take attachments")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
