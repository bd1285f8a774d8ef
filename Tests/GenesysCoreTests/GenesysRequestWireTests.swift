import AttendantPluginKit
import GenesysCore
import Testing

/// Each request against the JSON the Messenger transport SDK writes for it
/// (MyPureCloud/genesys-messenger-transport-mobile-sdk, transport/src/commonTest/…/network/
/// RequestSerializationTest.kt and SerializationTest.kt, with TestValues.TOKEN "token", TRACING_ID
/// "tracing_id"): ours encodes to the same JSON (member order aside), and the SDK's decodes to ours.
@Suite struct GenesysRequestWireTests {
    static func expectSame(_ request: GenesysRequest, asTheSDKs sdk: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let theirs = try JSONValue.parse(Array(sdk.utf8))
        #expect(request.json == theirs, "ours: \(request.json.text)", sourceLocation: sourceLocation)
        #expect(try JSONValue.parse(request.encoded()) == theirs, sourceLocation: sourceLocation)
        #expect(try GenesysRequest(decoding: Array(sdk.utf8)) == request, sourceLocation: sourceLocation)
    }

    @Test func configureSessionAsTheClientSendsIt() throws {
        // SerializationTest.kt "when ConfigureSessionRequest then encodes", the client's journey context.
        var request = GenesysRequest.configureSession(token: "<token>", deploymentId: "<deploymentId>", startNew: false, tracingId: "tracing_id")
        request.action = .configureSession(
            deploymentId: "<deploymentId>",
            startNew: false,
            journeyContext: .sdkDefault(token: "00000000-0000-0000-0000-000000000000")
        )
        try Self.expectSame(
            request,
            asTheSDKs:
                #"{"token":"<token>","deploymentId":"<deploymentId>","startNew":false,"journeyContext":{"customer":{"id":"00000000-0000-0000-0000-000000000000","idType":"cookie"},"customerSession":{"id":"","type":"web"}},"tracingId":"tracing_id","action":"configureSession"}"#
        )
        // The client's own request names its token as the journey's customer.
        let built = GenesysRequest.configureSession(token: "t-1", deploymentId: "d", startNew: true, tracingId: "x")
        #expect(built.json["journeyContext"]?["customer"]?["id"]?.stringValue == "t-1")
        #expect(built.json["journeyContext"]?["customer"]?["idType"]?.stringValue == "cookie")
    }

    @Test func configureSessionStartingANewChat() throws {
        // RequestSerializationTest.kt "validate ConfigureSessionRequest serialization".
        try Self.expectSame(
            GenesysRequest(
                token: "token",
                tracingId: "tracing_id",
                action: .configureSession(deploymentId: "deploymentId", startNew: true, journeyContext: nil)
            ),
            asTheSDKs: #"{"token":"token","deploymentId":"deploymentId","startNew":true,"tracingId":"tracing_id","action":"configureSession"}"#
        )
    }

    @Test func configureAuthenticatedSessionCarriesTheJWTAsDataCode() throws {
        // RequestSerializationTest.kt "validate ConfigureAuthenticatedSessionRequest serialization".
        try Self.expectSame(
            GenesysRequest(
                token: "token",
                tracingId: "tracing_id",
                action: .configureAuthenticatedSession(deploymentId: "deploymentId", startNew: false, journeyContext: nil, jwt: "jwt_Token")
            ),
            asTheSDKs:
                #"{"token":"token","deploymentId":"deploymentId","startNew":false,"data":{"code":"jwt_Token"},"tracingId":"tracing_id","action":"configureAuthenticatedSession"}"#
        )
        // SerializationTest.kt, with the journey context.
        var request = GenesysRequest.configureAuthenticatedSession(
            token: "<token>",
            deploymentId: "<deploymentId>",
            startNew: false,
            jwt: "<auth_token>",
            tracingId: "tracing_id"
        )
        request.action = .configureAuthenticatedSession(
            deploymentId: "<deploymentId>",
            startNew: false,
            journeyContext: .sdkDefault(token: "00000000-0000-0000-0000-000000000000"),
            jwt: "<auth_token>"
        )
        try Self.expectSame(
            request,
            asTheSDKs:
                #"{"token":"<token>","deploymentId":"<deploymentId>","startNew":false,"journeyContext":{"customer":{"id":"00000000-0000-0000-0000-000000000000","idType":"cookie"},"customerSession":{"id":"","type":"web"}},"data":{"code":"<auth_token>"},"tracingId":"tracing_id","action":"configureAuthenticatedSession"}"#
        )
    }

    @Test func journeyContextWithATriggeringAction() throws {
        // RequestSerializationTest.kt "validate JourneyContext serialization".
        let context = GenesysJourneyContext(
            customerId: "customer_id",
            customerIdType: "customer_id_type",
            customerSessionId: "customer_session_id",
            customerSessionType: "customer_session_type",
            triggeringActionId: "action_id",
            actionMapId: "action_map_id",
            actionMapVersion: 1.0
        )
        try Self.expectSame(
            GenesysRequest(
                token: "token",
                tracingId: "tracing_id",
                action: .configureSession(deploymentId: "deploymentId", startNew: false, journeyContext: context)
            ),
            asTheSDKs:
                #"{"token":"token","deploymentId":"deploymentId","startNew":false,"journeyContext":{"customer":{"id":"customer_id","idType":"customer_id_type"},"customerSession":{"id":"customer_session_id","type":"customer_session_type"},"triggeringAction":{"id":"action_id","actionMap":{"id":"action_map_id","version":1.0}}},"tracingId":"tracing_id","action":"configureSession"}"#
        )
    }

    @Test func aTextMessage() throws {
        // SerializationTest.kt "when OnMessageRequest then encodes", both cases.
        try Self.expectSame(
            GenesysRequest(token: "<token>", tracingId: "tracing_id", action: .onMessage(.text("Hello world"))),
            asTheSDKs: #"{"token":"<token>","message":{"text":"Hello world","type":"Text"},"tracingId":"tracing_id","action":"onMessage"}"#
        )
        try Self.expectSame(
            GenesysRequest(
                token: "<token>",
                tracingId: "tracing_id",
                action: .onMessage(
                    .text("Hello world", metadata: ["id": "aaa-bbb-ccc"], content: [.attachment(id: "abcd-1234")], customAttributes: ["A": "B"])
                )
            ),
            asTheSDKs:
                #"{"token":"<token>","message":{"text":"Hello world","metadata":{"id":"aaa-bbb-ccc"},"content":[{"contentType":"Attachment","attachment":{"id":"abcd-1234"}}],"channel":{"metadata":{"customAttributes":{"A":"B"}}},"type":"Text"},"tracingId":"tracing_id","action":"onMessage"}"#
        )
    }

    @Test func aQuickReplyIsATextMessageWithTheButtonResponse() throws {
        // MessageStore.prepareMessageWith: TextMessage(text = "", content = [ButtonResponse]); the content
        // item as RequestSerializationTest.kt / ResponsesTest.kt "validate StructuredMessage_ButtonResponse
        // serialization" writes it.
        let reply = GenesysButtonResponse(text: "text_a", payload: "payload_a", type: "QuickReply")
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .onMessage(.quickReply(reply))),
            asTheSDKs:
                #"{"token":"token","message":{"text":"","content":[{"contentType":"ButtonResponse","buttonResponse":{"text":"text_a","payload":"payload_a","type":"QuickReply"}}],"type":"Text"},"tracingId":"tracing_id","action":"onMessage"}"#
        )
    }

    @Test func aCardReplyIsAStructuredMessageWithTheButtonsText() throws {
        // MessageStore.preparePostbackMessage; RequestSerializationTest.kt "StructuredMessage with
        // ButtonResponse serializes correctly" checks text, payload and type.
        let button = GenesysButtonResponse(text: "Postback button text", payload: "postback_payload", type: "Button", originatingMessageId: "msg_id")
        let request = GenesysRequest(token: "token", tracingId: "tracing_id", action: .onMessage(.cardReply(button)))
        let message = try #require(request.json["message"])
        #expect(message["type"]?.stringValue == "Structured")
        #expect(message["text"]?.stringValue == "Postback button text")
        #expect(message["content"]?.arrayValue?.first?["buttonResponse"]?["payload"]?.stringValue == "postback_payload")
        #expect(message["content"]?.arrayValue?.first?["buttonResponse"]?["originatingMessageId"]?.stringValue == "msg_id")
        #expect(try GenesysRequest(decoding: request.encoded()) == request)
    }

    @Test func typingAutostartAndClearAreEvents() throws {
        // RequestSerializationTest.kt: UserTypingRequest, AutoStartRequest, ClearConversationRequest.
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .onMessage(.typing)),
            asTheSDKs:
                #"{"token":"token","tracingId":"tracing_id","action":"onMessage","message":{"events":[{"eventType":"Typing","typing":{"type":"On"}}],"type":"Event"}}"#
        )
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .onMessage(.autostart())),
            asTheSDKs:
                #"{"token":"token","tracingId":"tracing_id","action":"onMessage","message":{"events":[{"eventType":"Presence","presence":{"type":"Join"}}],"type":"Event"}}"#
        )
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .onMessage(.clearConversation)),
            asTheSDKs:
                #"{"token":"token","tracingId":"tracing_id","action":"onMessage","message":{"events":[{"eventType":"Presence","presence":{"type":"Clear"}}],"type":"Event"}}"#
        )
        // androidUnitTest/transport/util/Request.kt's autostart with custom attributes (no tracingId there).
        try Self.expectSame(
            GenesysRequest(
                token: "00000000-0000-0000-0000-000000000000",
                tracingId: nil,
                action: .onMessage(.autostart(customAttributes: ["A": "B"]))
            ),
            asTheSDKs:
                #"{"token":"00000000-0000-0000-0000-000000000000","action":"onMessage","message":{"events":[{"eventType":"Presence","presence":{"type":"Join"}}],"channel":{"metadata":{"customAttributes":{"A":"B"}}},"type":"Event"}}"#
        )
    }

    @Test func echoAlwaysCarriesTheHealthCheckTracingID() throws {
        // RequestSerializationTest.kt "validate EchoRequest serialization".
        try Self.expectSame(
            .echo(token: "token"),
            asTheSDKs: #"{"token":"token","tracingId":"SGVhbHRoQ2hlY2tNZXNzYWdlSWQ=","action":"echo","message":{"text":"ping","type":"Text"}}"#
        )
    }

    @Test func theAttachmentActions() throws {
        // SerializationTest.kt "when OnAttachmentRequest then encodes" (what the client sends: size, errorsAsJson).
        try Self.expectSame(
            GenesysRequest(
                token: "<token>",
                tracingId: "tracing_id",
                action: .onAttachment(
                    GenesysAttachmentUpload(
                        attachmentId: "00000000-0000-0000-0000-000000000001",
                        fileName: "foo.png",
                        fileType: "image/png",
                        fileSize: 424242
                    )
                )
            ),
            asTheSDKs:
                #"{"token":"<token>","attachmentId":"00000000-0000-0000-0000-000000000001","fileName":"foo.png","fileType":"image/png","fileSize":424242,"errorsAsJson":true,"tracingId":"tracing_id","action":"onAttachment"}"#
        )
        // RequestSerializationTest.kt: GetAttachmentRequest, DeleteAttachmentRequest.
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .getAttachment(attachmentId: "test_attachment_id")),
            asTheSDKs: #"{"token":"token","attachmentId":"test_attachment_id","tracingId":"tracing_id","action":"getAttachment"}"#
        )
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .deleteAttachment(attachmentId: "test_attachment_id")),
            asTheSDKs: #"{"token":"token","attachmentId":"test_attachment_id","tracingId":"tracing_id","action":"deleteAttachment"}"#
        )
    }

    @Test func getJwtAndCloseSession() throws {
        // RequestSerializationTest.kt: JwtRequest, CloseSessionRequest.
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .getJwt),
            asTheSDKs: #"{"token":"token","tracingId":"tracing_id","action":"getJwt"}"#
        )
        try Self.expectSame(
            GenesysRequest(token: "token", tracingId: "tracing_id", action: .closeSession(closeAllConnections: true)),
            asTheSDKs: #"{"token":"token","closeAllConnections":true,"tracingId":"tracing_id","action":"closeSession"}"#
        )
    }

    @Test func theOAuthBodies() throws {
        // RequestSerializationTest.kt "validate OAuth serialization" (inside AuthJwtRequest, WebMessagingApi.fetchAuthJwt).
        let exchange = try JSONValue.parse(
            GenesysAuthBodies.codeExchange(deploymentId: "d", code: "auth_code", redirectUri: "https://r", codeVerifier: "v")
        )
        #expect(
            exchange
                == (try JSONValue.parse(
                    Array(#"{"deploymentId":"d","oauth":{"code":"auth_code","redirectUri":"https://r","codeVerifier":"v"}}"#.utf8)
                ))
        )
        let refresh = try JSONValue.parse(GenesysAuthBodies.refresh(refreshToken: "refresh_token"))
        #expect(refresh == .object(["refreshToken": .string("refresh_token")]))
        // AuthJwt as the tests' auth engine answers it.
        let answer = try GenesysAuthBodies.AuthJwt(decoding: Array(#"{"jwt":"jwt_Token","refreshToken":"refresh_token"}"#.utf8))
        #expect(answer == GenesysAuthBodies.AuthJwt(jwt: "jwt_Token", refreshToken: "refresh_token"))
    }

    @Test func everyActionHasTheSDKsName() {
        // shyrka/send/RequestAction.kt.
        let actions: [GenesysRequest.Action] = [
            .configureSession(deploymentId: "", startNew: false, journeyContext: nil),
            .configureAuthenticatedSession(deploymentId: "", startNew: false, journeyContext: nil, jwt: ""),
            .onMessage(.typing), .echo,
            .onAttachment(GenesysAttachmentUpload(attachmentId: "", fileName: "", fileType: "", fileSize: nil)),
            .getAttachment(attachmentId: ""), .deleteAttachment(attachmentId: ""), .getJwt, .closeSession(closeAllConnections: true),
        ]
        #expect(
            actions.map(\.name) == [
                "configureSession", "configureAuthenticatedSession", "onMessage", "echo", "onAttachment", "getAttachment",
                "deleteAttachment", "getJwt", "closeSession",
            ]
        )
    }
}
