import AttendantPluginAPI
import CXoneCore
import Testing

/// The gateway's frames (the SDK-shaped samples) as the chat state machine's inputs.
@Suite struct WireInputTests {
    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func input(_ sample: String, request: ChatWireInput.Request? = nil) throws -> (input: ChatStateMachine.Input?, ignored: String?) {
        let inbound = try CXoneInbound.decode(WireSamples.bytes(sample + ".json"))
        return ChatWireInput.input(for: inbound, request: request, now: Self.now)
    }

    @Test func consumerAuthorizedGivesTheIdentityAndATokenDatedFromNow() throws {
        guard case .authorized(let identity, let token)? = try Self.input("consumer-authorized").input else {
            Issue.record("expected authorized")
            return
        }
        #expect(identity == ChatStateMachine.CustomerIdentity(id: "C0FFEE00-1234-4abc-9def-000000000042", firstName: "Pat", lastName: "Customer"))
        #expect(token?.value == "eyJhbGciOiJIUzI1NiJ9.fake.token")
        #expect(token?.expiresAt == Self.now + .seconds(3600))
        #expect(!"\(String(describing: token))".contains("fake.token"))
    }

    @Test func messageCreatedFromAnAgentIsAMessageWithLowerCasedIdsAndTheCase() throws {
        guard case .messageCreated(let message, let caseID)? = try Self.input("message-created").input else {
            Issue.record("expected messageCreated")
            return
        }
        #expect(caseID == "9876543210")
        #expect(message.id == "e7a1c0de-1111-4111-8111-111111111111")
        #expect(message.threadID == "a1b2c3d4-0000-4000-8000-000000000001", "the mixed-case thread id is lower-cased")
        #expect(message.direction == .fromAgent)
        #expect(message.text == "Hello, how can I help?")
        #expect(!message.sender.displayName.isEmpty)
    }

    @Test func threadRecoveredIsTheLoadedThreadWithItsMessagesCaseAndAgent() throws {
        guard case .threadRecovered(let thread, let caseID, let agent)? = try Self.input("thread-recovered").input else {
            Issue.record("expected threadRecovered")
            return
        }
        #expect(thread.id == "a1b2c3d4-0000-4000-8000-000000000001" && thread.state == .loaded)
        #expect(caseID == "9876543210")
        #expect(agent?.displayName == "Annie", "the nickname wins: \(String(describing: agent))")
        let first = try #require(thread.lastMessages.first)
        #expect(first.direction == .toAgent && first.text == "I need help" && first.sender.displayName == "Pat Customer")
        #expect(thread.lastMessages.map(\.sentAt) == thread.lastMessages.map(\.sentAt).sorted(), "oldest first")
    }

    @Test func caseStatusChangedAndTheWelcomeMessage() throws {
        guard case .caseStatusChanged(let caseID, let status)? = try Self.input("case-status-changed").input else {
            Issue.record("expected caseStatusChanged")
            return
        }
        #expect(caseID == "9876543210" && status == .closed)
        guard case .proactiveAction(let welcome)? = try Self.input("fire-proactive-action").input else {
            Issue.record("expected the welcome message")
            return
        }
        #expect(welcome == "Hi there, welcome to our shop!")
    }

    @Test func listsLargeEventsErrorsAndPongs() throws {
        guard case .threadListFetched(let ids, at: _)? = try Self.input("thread-list-fetched").input else {
            Issue.record("expected threadListFetched")
            return
        }
        #expect(!ids.isEmpty && ids.allSatisfy { $0 == $0.lowercased() })
        guard case .eventInS3(let url, let origin)? = try Self.input("event-in-s3").input else {
            Issue.record("expected eventInS3")
            return
        }
        #expect(url == "https://chat-events.s3.amazonaws.com/large/55555555.json" && origin == "ThreadRecovered")
        guard case .operationError(let code, _)? = try Self.input("operation-error").input else {
            Issue.record("expected an operation error")
            return
        }
        #expect(!code.isEmpty)
        guard case .serverError? = try Self.input("server-error").input else {
            Issue.record("expected a server error")
            return
        }
        #expect(try Self.input("pong").input == .pong)
    }

    @Test func unknownAndUnmodelledEventsAreNamedNotActedOn() throws {
        let unknown = ChatWireInput.input(for: .unknown(eventType: "SomethingNew"), now: Self.now)
        #expect(unknown.input == nil && unknown.ignored == "an event of unknown type SomethingNew")
        let metadata = ChatWireInput.input(for: .threadMetadataLoaded(CXoneWire.ThreadMetadata()), now: Self.now)
        #expect(metadata.input == nil, "no thread to attach it to")
        let answered = ChatWireInput.input(for: .threadMetadataLoaded(CXoneWire.ThreadMetadata()), request: .init(threadID: "t-1"), now: Self.now)
        #expect(answered.input == .threadMetadataLoaded(threadID: "t-1", name: nil, lastMessage: nil), "the request says which thread")
    }

    @Test(
        arguments: [
            ("Hi {{customer.firstName|there}}!", [:], "Hi there!"),
            ("Hi {{ customer.firstName | there}}!", ["customer.firstName": "Pat"], "Hi Pat!"),
            ("No placeholders", [:], "No placeholders"),
            ("{{x}}{{y|}}end", [:], "end"),
            ("Unclosed {{name|fallback", [:], "Unclosed {{name|fallback"),
        ] as [(String, [String: String], String)]
    )
    func welcomePlaceholders(text: String, values: [String: String], expected: String) {
        #expect(ChatWireInput.fillingPlaceholders(text, values: values) == expected)
    }
}

/// The chat state machine's commands as gateway frames.
@Suite struct WireOutputTests {
    static let context = ChatWireOutput.Context(
        brandID: 1386,
        channelID: "chat_51eafd5b",
        customer: ChatStateMachine.CustomerIdentity(id: "c0ffee00", firstName: "Pat"),
        visitorID: "v-1",
        accessToken: "secret.access.token",
        sdkVersion: "attendant-1.0"
    )

    static func json(_ command: ChatStateMachine.Command) throws -> String {
        try ChatWireOutput.frame(for: command, context: Self.context, eventID: "e-1").encoded().text
    }

    @Test func framesCarryBrandChannelCustomerAndVisitor() throws {
        let text = try Self.json(.fetchThreadList)
        for part in [
            #""action":"chatWindowEvent""#, #""eventId":"e-1""#, #""brand":{"id":1386}"#, #""channel":{"id":"chat_51eafd5b"}"#,
            #""idOnExternalPlatform":"c0ffee00""#, #""eventType":"FetchThreadList""#, #""visitor":{"id":"v-1"}"#,
        ] {
            #expect(text.contains(part), "\(part) in \(text)")
        }
        #expect(try ChatWireOutput.frame(for: .heartbeat, context: Self.context).encoded().text == #"{"action":"heartbeat"}"#)
    }

    @Test func authorizeIsARegisterWithTheOAuthCodeAndEveryCommandRoundTrips() throws {
        #expect(try Self.json(.authorizeCustomer(code: "code-1", verifier: "verifier-1")).contains(#""action":"register""#))
        let commands: [ChatStateMachine.Command] = [
            .authorizeCustomer(code: "code-1", verifier: "verifier-1"), .reconnectCustomer(token: "t"), .recoverThread(threadID: "t-1"),
            .recoverThread(threadID: nil), .recoverLivechat(threadID: "t-1"), .fetchThreadList, .loadThreadMetadata(threadID: "t-1"),
            .sendMessage(threadID: "t-1", messageID: "m-1", text: "Hello", customFields: ["email": "pat@example.com"]),
            .sendOutbound(threadID: "t-1", messageID: "m-0", text: "Welcome"), .endContact(threadID: "t-1", caseID: "42"),
        ]
        for command in commands {
            let frame = ChatWireOutput.frame(for: command, context: Self.context, eventID: "e-1")
            let decoded = try CXoneOutbound.decode(try frame.encoded())
            #expect(decoded == frame, "\(command)")
        }
    }

    @Test func aMessageCarriesItsIdTextThreadAndFields() throws {
        let frame = ChatWireOutput.frame(
            for: .sendMessage(threadID: "t-1", messageID: "m-1", text: "Hello", customFields: ["email": "pat@example.com"]),
            context: Self.context
        )
        guard case .frame(let client) = frame, case .sendMessage(let message) = client.event else {
            Issue.record("expected SendMessage")
            return
        }
        #expect(message.idOnExternalPlatform == "m-1" && message.thread.idOnExternalPlatform == "t-1")
        #expect(message.messageContent.text == "Hello")
        #expect(message.contact?.customFields == [CXoneWire.CustomField(ident: "email", value: "pat@example.com")])
        #expect(client.destinationId == "t-1")
        #expect(ChatWireOutput.request(for: .loadThreadMetadata(threadID: "t-9")).threadID == "t-9")
    }
}

@Suite struct DownloadedInputTests {
    static func notice() throws -> CXoneWire.EventInS3 {
        guard case .event(_, nil, .eventInS3(let s3)) = try CXoneInbound.decode(WireSamples.bytes("event-in-s3.json")) else {
            throw ChatError(.server, "the sample is not EventInS3")
        }
        return s3
    }

    @Test func aDownloadedBodyIsItsOriginEventsInputOrSaysWhyNot() throws {
        let url = "https://chat-events.s3.amazonaws.com/large/55555555.json"
        let limits = CXoneWireLimits()
        let recovered = ChatWireInput.downloaded(
            url: url,
            .success(WireSamples.bytes("thread-recovered.json")),
            large: try Self.notice(),
            limits: limits,
            now: WireInputTests.now
        )
        guard case .downloaded(url, .threadRecovered)? = Optional(recovered.input) else {
            Issue.record("expected the recovered thread, got \(recovered.input)")
            return
        }
        let failed = ChatWireInput.downloaded(
            url: url,
            .failure(ChatError(.server, "HTTP 403")),
            large: try Self.notice(),
            limits: limits,
            now: WireInputTests.now
        )
        #expect("\(failed.input)" == "\(ChatStateMachine.Input.downloadFailed(url: url, reason: "HTTP 403"))")
        let wrong = ChatWireInput.downloaded(
            url: url,
            .success(WireSamples.bytes("thread-list-fetched.json")),
            large: try Self.notice(),
            limits: limits,
            now: WireInputTests.now
        )
        guard case .downloadFailed(url, let reason) = wrong.input else {
            Issue.record("a body of another event was taken: \(wrong.input)")
            return
        }
        #expect(reason.contains("not the announced ThreadRecovered"), "\(reason)")
        let forgotten = ChatWireInput.downloaded(url: url, .success([]), large: nil, limits: limits, now: WireInputTests.now)
        #expect("\(forgotten.input)" == "\(ChatStateMachine.Input.downloadFailed(url: url, reason: "the notice of the event is gone"))")
    }
}
