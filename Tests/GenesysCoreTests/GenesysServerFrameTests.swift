import AttendantPluginKit
import GenesysCore
import Testing

/// Every frame class the SDK reads, decoded from the SDK's own test fixtures: Response.kt is
/// transport/src/androidUnitTest/kotlin/transport/util/Response.kt, ResponsesTest.kt is
/// transport/src/androidUnitTest/kotlin/transport/shyrka/receive/ResponsesTest.kt
/// (MyPureCloud/genesys-messenger-transport-mobile-sdk 2.14.0).
@Suite struct GenesysServerFrameTests {
    static func frame(_ text: String) throws -> GenesysServerFrame {
        try GenesysServerFrame(decoding: Array(text.utf8))
    }

    static func message(_ text: String) throws -> GenesysStructuredMessage {
        guard case .structuredMessage(let message) = try Self.frame(text).body else {
            Issue.record("not a StructuredMessage")
            throw GenesysWireError(.badValue, "not a StructuredMessage")
        }
        return message
    }

    @Test func sessionResponses() throws {
        // Response.configureSuccess with AllowedMedia.listOfFileTypesWithMaxSize and listOfBlockedExtensions.
        let frame = try Self.frame(
            #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":true,"readOnly":false,"maxCustomDataBytes":100,"allowedMedia":{"inbound":{"fileTypes":[{"type":"video/mpg"},{"type":"video/3gpp"}],"maxFileSizeKB":10240}},"blockedExtensions":[".ade",".adp"],"clearedExistingSession":false}}"#
        )
        #expect(frame.type == "response" && frame.code == 200)
        #expect(
            frame.body
                == .session(
                    GenesysSessionResponse(
                        connected: true,
                        newSession: true,
                        maxCustomDataBytes: 100,
                        allowedFileTypes: ["video/mpg", "video/3gpp"],
                        maxFileSizeKB: 10240,
                        blockedExtensions: [".ade", ".adp"]
                    )
                )
        )
        // Response.configureSuccessWithNewSessionFalse: every other member at the SDK's default.
        #expect(
            try Self.frame(#"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":false}}"#).body
                == .session(GenesysSessionResponse(connected: true))
        )
        // ResponsesTest.kt "when SessionResponse deserialized"; read-only (Response.configureSuccess(readOnly = true)).
        let readOnly = try Self.frame(
            #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":false,"newSession":true,"readOnly":true,"maxCustomDataBytes":100,"clearedExistingSession":true}}"#
        )
        guard case .session(let session) = readOnly.body else { throw GenesysWireError(.badValue, "not a session") }
        #expect(session.readOnly && !session.connected && session.clearedExistingSession)
        #expect(session.maxFileSizeKB == nil && session.allowedFileTypes.isEmpty)
    }

    @Test func anAgentsTextMessage() throws {
        // Response.onMessage(direction = Outbound).
        let frame = try Self.frame(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"text":"Hello world!","direction":"Outbound","id":"test_id","channel":{"time":"2022-08-22T19:24:26.704Z","messageId":"message_id"},"type":"Text"},"tracingId":"some_custom_message_id"}"#
        )
        #expect(frame.type == "message" && frame.tracingId == "some_custom_message_id" && !frame.isHealthCheckReply)
        guard case .structuredMessage(let message) = frame.body else { throw GenesysWireError(.badValue, "not a message") }
        #expect(message.kind == .text && message.direction == .outbound && message.id == "test_id")
        #expect(message.text == "Hello world!")
        #expect(message.channel?.time == "2022-08-22T19:24:26.704Z" && message.channel?.messageId == "message_id")
    }

    @Test func theEchoAnswerIsKnownByItsTracingID() throws {
        // Response.healthCheckResponse and Response.echo (spaces and all).
        #expect(
            try Self.frame(
                #"{"type":"response","class":"StructuredMessage","code":200,"body":{"text":"ping","type":"Text","direction":"Inbound","id":"echo_id"},"tracingId":"SGVhbHRoQ2hlY2tNZXNzYWdlSWQ="}"#
            ).isHealthCheckReply
        )
        #expect(
            try Self.frame(
                #"{"type":"response","class":"StructuredMessage","code":200,"body":{"text":"ping","type":"Text","direction":"Inbound","id":"echo_id"}, "tracingId":"SGVhbHRoQ2hlY2tNZXNzYWdlSWQ=" }"#
            ).isHealthCheckReply
        )
        // Response.healthCheckResponseWithSessionDuration: the durations ride in metadata, as strings.
        let withDuration = try Self.message(
            #"{"type":"response","class":"StructuredMessage","code":200,"body":{"text":"ping","type":"Text","direction":"Inbound","id":"echo_id","metadata":{"durationSeconds":"600","expirationDate":"1700000000"}},"tracingId":"SGVhbHRoQ2hlY2tNZXNzYWdlSWQ="}"#
        )
        #expect(withDuration.metadata == ["durationSeconds": "600", "expirationDate": "1700000000"])
    }

    @Test func anAttachmentMessage() throws {
        // Response.onMessageWithAttachment (AttachmentValues.FILE_SIZE 100).
        let message = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","channel":{"time":"some_time","type":"Private"},"type":"Text","text":"Hi","content":[{"attachment":{"id":"attachment_id","filename":"image.png","mediaType":"Image","fileSize":100,"mime":"image/png","url":"https://downloadurl.com"},"contentType":"Attachment"}],"originatingEntity":"Human"}}"#
        )
        #expect(
            message.attachments == [
                GenesysReceivedAttachment(
                    id: "attachment_id",
                    url: "https://downloadurl.com",
                    filename: "image.png",
                    fileSize: 100,
                    mediaType: "Image",
                    mime: "image/png"
                )
            ]
        )
        #expect(message.originatingEntity == "Human" && message.channel?.type == "Private")
    }

    @Test func unknownContentIsKeptAsUnknown() throws {
        // commonTest/…/network/SerializationTest.kt's message with a FakeContent beside an attachment.
        let message = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","type":"Text","text":"Hi","content":[{"fakeContent":{"foo":"bar"},"contentType":"FakeContent"},{"attachment":{"id":"attachment_id","filename":"image.png","mediaType":"Image","url":"https://downloadurl.com"},"contentType":"Attachment"}],"originatingEntity":"Human"}}"#
        )
        #expect(message.content.first == .unknown(contentType: "FakeContent"))
        #expect(message.attachments.map(\.id) == ["attachment_id"])
    }

    @Test func quickRepliesAnswerTheirMessage() throws {
        // Response.onMessageWithQuickReplies.
        let message = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","channel":{"time":"some_time","type":"Private"},"type":"Structured","text":"Hi","content":[{"contentType":"QuickReply","quickReply":{"text":"text_a","payload":"payload_a","action":"action_a"}},{"contentType":"QuickReply","quickReply":{"text":"text_b","payload":"payload_b","action":"action_b"}}],"originatingEntity":"Bot"}}"#
        )
        #expect(message.kind == .structured && message.originatingEntity == "Bot")
        #expect(
            message.quickReplies == [
                GenesysButtonResponse(text: "text_a", payload: "payload_a", type: "QuickReply", originatingMessageId: "msg_id"),
                GenesysButtonResponse(text: "text_b", payload: "payload_b", type: "QuickReply", originatingMessageId: "msg_id"),
            ]
        )
        // SerializationTest.kt: quick replies without an action, empty channel participants.
        let bare = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"text":"What would you like to do?","type":"Structured","direction":"Outbound","id":"msg_id","channel":{"time":"2026-01-06T13:26:15.174Z","type":"Private","from":{},"to":{}},"content":[{"contentType":"QuickReply","quickReply":{"text":"Yes","payload":"cookie1"}},{"contentType":"QuickReply","quickReply":{"text":"No","payload":"cookie2"}}],"metadata":{},"originatingEntity":"Bot"}}"#
        )
        #expect(bare.quickReplies.map(\.payload) == ["cookie1", "cookie2"])
        #expect(bare.channel?.from == GenesysStructuredMessage.Participant())
    }

    @Test func cardsAndCarousels() throws {
        // Response.onMessageWithPostbackCardReply.
        let card = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","channel":{"time":"some_time","type":"Private"},"type":"Structured","text":"You selected this card option","content":[{"contentType":"Card","card":{"title":"Title","description":"Description","image":"http://image.com/image.png","actions":[{"type":"Postback","text":"Select this option","payload":"postback_payload"}]}}],"originatingEntity":"Bot"}}"#
        )
        #expect(
            card.cards == [
                GenesysCard(
                    title: "Title",
                    description: "Description",
                    image: "http://image.com/image.png",
                    actions: [GenesysCardAction(type: "Postback", text: "Select this option", payload: "postback_payload")]
                )
            ]
        )
        // SerializationTest.kt's carousel.
        let carousel = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"carousel-id","type":"Structured","text":"Carousel content test","direction":"Outbound","content":[{"contentType":"Carousel","carousel":{"cards":[{"title":"Card 1","description":"D1","actions":[{"type":"Link","text":"Open","url":"http://example.org"}]},{"title":"Card 2","description":"D2","actions":[]}]} }],"originatingEntity":"Human"}}"#
        )
        #expect(carousel.cards.map(\.title) == ["Card 1", "Card 2"])
        #expect(carousel.cards[0].actions == [GenesysCardAction(type: "Link", text: "Open", url: "http://example.org")])
    }

    @Test func aDatePicker() throws {
        // Response.onMessageWithDatePickerStructured, TimeSlotPickerTestValues filled in.
        let message = try Self.message(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","originatingMessageId":"msg_id","channel":{"time":"some_time","type":"Private"},"type":"Structured","text":"Pick a time","content":[{"contentType":"DatePicker","datePicker":{"title":"Select a time","subtitle":"Choose slot","imageUrl":"https://example.com/cal.png","availableTimes":[{"duration":30,"dateTime":"2022-08-22T19:24:26.704Z"}]}}],"originatingEntity":"Bot"}}"#
        )
        guard case .datePicker(let picker) = message.content.first else { throw GenesysWireError(.badValue, "no picker") }
        #expect(picker.title == "Select a time" && picker.availableTimes.map(\.dateTime) == ["2022-08-22T19:24:26.704Z"])
        #expect(message.originatingMessageId == "msg_id")
    }

    @Test func eventsTypingPresenceAndUnknown() throws {
        // Response.structuredMessageWithEvents with StructuredEvent's fixtures.
        func events(_ events: String, metadata: String = #"{"correlationId":"0000000-0000-0000-0000-0000000000"}"#) throws -> GenesysStructuredMessage
        {
            try Self.message(
                #"{"type": "message","class": "StructuredMessage","code": 200,"body": {"direction": "Outbound","id": "0000000-0000-0000-0000-0000000000","channel": {"time": "2022-03-09T13:35:31.104Z","messageId": "0000000-0000-0000-0000-0000000000"},"type": "Event","metadata": "#
                    + metadata + #","events": ["# + events + "]}}"
            )
        }
        let typing = try events(
            #"{"eventType": "Typing","typing": {"type": "Off","duration": 1000}},{"eventType": "Typing","typing": {"type": "On","duration": 5000}}"#
        )
        #expect(typing.kind == .event)
        #expect(typing.events == [.typing(type: "Off", durationMilliseconds: 1000), .typing(type: "On", durationMilliseconds: 5000)])
        let join = try events(#"{"eventType":"Presence","presence":{"type":"Join"}}"#)
        #expect(join.events == [.presence(.join)] && !join.isConversationDisconnect)
        let disconnect = try events(#"{"eventType":"Presence","presence":{"type":"Disconnect"}}"#, metadata: #"{"readOnly":"true"}"#)
        #expect(disconnect.isConversationDisconnect && disconnect.isReadOnly)
        let signIn = try events(#"{"eventType":"Presence","presence":{"type":"SignIn"}}"#)
        #expect(signIn.events == [.presence(.signIn)])
        let unknown = try events(#"{"eventType":"Fake","bloop":{"bip":"bop"}}"#)
        #expect(unknown.events == [.unknown(eventType: "Fake")])
    }

    @Test func errorsOfClassString() throws {
        // Response.sessionExpired, sessionNotFound, messageTooLong, customAttributeSizeTooLarge,
        // cannotDowngradeToUnauthenticated, clientError403Normal, unauthorized, unknownErrorEvent.
        let cases: [(String, GenesysErrorCode, String)] = [
            (
                #"{"type": "response","class": "string","code": 4006,"body": "session expired error message"}"#, .sessionHasExpired,
                "SessionHasExpired"
            ),
            (#"{"type": "response","class": "string","code": 4007,"body": "session not found error message"}"#, .sessionNotFound, "SessionNotFound"),
            (#"{"type": "response","class": "string","code": 4011,"body": "message too long"}"#, .messageTooLong, "MessageTooLong"),
            (
                #"{"type":"response","class":"string","code":4013,"body":"Custom Attributes in channel metadata is larger than 2048 bytes"}"#,
                .customAttributeSizeTooLarge, "CustomAttributeSizeTooLarge"
            ),
            (
                #"{"type": "response","class": "string","code": 4017,"body": "x"}"#, .cannotDowngradeToUnauthenticated,
                "CannotDowngradeToUnauthenticated"
            ),
            (
                #"{"type":"response","class":"string","code":403,"body":"HTTP authorization error"}"#, GenesysErrorCode(403),
                "ClientResponseError(403)"
            ),
            (
                #"{"type": "response","class": "string","code": 401,"body": "User is unauthorized"}"#, GenesysErrorCode(401),
                "ClientResponseError(401)"
            ),
            (#"{"type":"response","class":"string","code":5000,"body":"Request failed."}"#, .unexpectedError, "UnexpectedError"),
        ]
        for (text, code, name) in cases {
            guard case .error(let decoded, _) = try Self.frame(text).body else {
                Issue.record("not an error: \(text)")
                continue
            }
            #expect(decoded == code)
            #expect(decoded.name == name)
        }
        #expect(GenesysErrorCode.sessionHasExpired.endsTheSession && GenesysErrorCode.sessionNotFound.endsTheSession)
        #expect(GenesysErrorCode.messageTooLong.refusesTheMessage && !GenesysErrorCode(403).refusesTheMessage)
        #expect(GenesysErrorCode(302).name == "RedirectResponseError(302)" && GenesysErrorCode(503).name == "ServerResponseError(503)")
        #expect(GenesysErrorCode(7).name == "UnexpectedError")
    }

    @Test func theOtherClasses() throws {
        // Response.presignedUrlResponse / presignedUrlResponse(...), uploadSuccessEvent, uploadFailureEvent,
        // generateUrlError, attachmentDeleted, jwtResponse, tooManyRequests, sessionExpiredEvent,
        // connectionClosedEventNoReason / ReasonSignIn, logoutEvent, sessionClearedEvent.
        #expect(
            try Self.frame(
                #"{"type":"response","class":"PresignedUrlResponse","code":200,"body":{"attachmentId":"test_attachment_id","headers":{"x-amz-tagging":"abc"},"url":"https://downloadurl.png"}}"#
            ).body
                == .presignedURL(
                    GenesysPresignedURL(attachmentId: "test_attachment_id", headers: ["x-amz-tagging": "abc"], url: "https://downloadurl.png")
                )
        )
        guard
            case .presignedURL(let refreshed) = try Self.frame(
                #"{"type":"response","class":"PresignedUrlResponse","code":200,"body":{"attachmentId":"88888888-8888-8888-8888-888888888888","headers":{},"url":"https://downloadUrl.com","fileName":"test_asset.png","fileSize":1,"fileType":"image/jpeg"}}"#
            ).body
        else { throw GenesysWireError(.badValue, "not presigned") }
        #expect(refreshed.isRefreshedDownload && refreshed.fileName == "test_asset.png")
        #expect(
            try Self.frame(
                #"{"type":"message","class":"UploadSuccessEvent","code":200,"body":{"attachmentId":"test_attachment_id","downloadUrl":"https://downloadurl.png","timestamp":"2022-08-22T19:24:26.704Z"}}"#
            ).body
                == .uploadSuccess(attachmentId: "test_attachment_id", downloadUrl: "https://downloadurl.png", timestamp: "2022-08-22T19:24:26.704Z")
        )
        #expect(
            try Self.frame(
                #"{"type":"message","class":"UploadFailureEvent","code":200,"body":{"attachmentId":"test_attachment_id","errorCode":4001,"errorMessage":"This is a generic error message for testing.","timestamp":"2022-08-22T19:24:26.704Z"}}"#
            ).body
                == .uploadFailure(
                    GenesysAttachmentFailure(
                        attachmentId: "test_attachment_id",
                        errorCode: .fileTypeInvalid,
                        errorMessage: "This is a generic error message for testing.",
                        timestamp: "2022-08-22T19:24:26.704Z"
                    )
                )
        )
        #expect(
            try Self.frame(
                #"{"type":"message","class":"GenerateUrlError","code":200,"body":{"attachmentId":"test_attachment_id","errorCode":4001,"errorMessage":"This is a generic error message for testing."}}"#
            ).body
                == .generateURLError(
                    GenesysAttachmentFailure(
                        attachmentId: "test_attachment_id",
                        errorCode: .fileTypeInvalid,
                        errorMessage: "This is a generic error message for testing."
                    )
                )
        )
        #expect(
            try Self.frame(#"{"type":"message","class":"AttachmentDeletedResponse","code":200,"body":{"attachmentId":"attachment_id"}}"#).body
                == .attachmentDeleted(attachmentId: "attachment_id")
        )
        #expect(
            try Self.frame(#"{"type":"response","class":"JwtResponse","code":200,"body":{"jwt":"some_jwt","exp":333}}"#).body
                == .jwt(jwt: "some_jwt", exp: 333)
        )
        #expect(
            try Self.frame(
                #"{"type":"response","class":"TooManyRequestsErrorMessage","code":429,"body":{"retryAfter":3,"errorCode":4029,"errorMessage":"Message rate too high for this session"}}"#
            ).body == .tooManyRequests(retryAfter: 3, errorCode: .requestRateTooHigh, errorMessage: "Message rate too high for this session")
        )
        #expect(try Self.frame(#"{"type": "response","class": "SessionExpiredEvent","code": 200,"body": {}}"#).body == .sessionExpired)
        #expect(try Self.frame(#"{"type":"message","class":"ConnectionClosedEvent","code":200,"body":{}}"#).body == .connectionClosed(reason: nil))
        #expect(
            try Self.frame(#"{"type":"message","class":"ConnectionClosedEvent","code":200,"body":{"reason":"signedIn"}}"#).body
                == .connectionClosed(reason: "signedIn")
        )
        #expect(try Self.frame(#"{"type":"message","class":"LogoutEvent","code":200,"body":{}}"#).body == .logout)
        #expect(try Self.frame(#"{"type":"message","class":"SessionClearedEvent","code":200,"body":{}}"#).body == .sessionCleared)
    }

    @Test func eachBodyNamesItsClass() throws {
        let bodies: [GenesysServerFrame.Body] = [
            .error(.unexpectedError, ""), .session(GenesysSessionResponse(connected: true)), .sessionExpired, .logout, .sessionCleared,
            .connectionClosed(reason: nil), .jwt(jwt: "", exp: 0),
        ]
        #expect(
            bodies.map(\.className) == [
                "string", "SessionResponse", "SessionExpiredEvent", "LogoutEvent", "SessionClearedEvent", "ConnectionClosedEvent", "JwtResponse",
            ]
        )
    }
}
