import AttendantPluginAPI
import CXoneCore
import Testing

/// ``ChatCommand``: what a request asks of a CXone chat, with the time limits the configuration gives it.
@Suite struct ChatCommandTests {
    static let settings = ChatCommand.Settings(
        brandID: 1386,
        channelID: "chat_1",
        requestTimeout: .seconds(10),
        responseTimeout: .seconds(5),
        gatewayDescription: "wss://gateway"
    )
    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func timeout(_ request: ChannelRequest) throws -> Duration? {
        guard case .operation(let operation) = try ChatCommand(request, settings: Self.settings, now: Self.now) else {
            Issue.record("\(request.name) is not an operation")
            return nil
        }
        return operation.timeout
    }

    @Test func operationsWaitAsLongAsTheirRoundTripsNeed() throws {
        #expect(try Self.timeout(.prepare) == .seconds(30), "three REST calls at most")
        #expect(try Self.timeout(.connect) == .seconds(30), "four answers and a REST call")
        #expect(try Self.timeout(.openThread(threadID: "t1")) == .seconds(5))
        #expect(try Self.timeout(.endConversation(threadID: nil)) == .seconds(5))
        #expect(try Self.timeout(.sendMessage(threadID: nil, text: "hi")) == .seconds(5))
        #expect(try Self.timeout(.viewPage(title: "Desk", url: "https://example.com")) == nil, "over once started")
        #expect(try Self.timeout(.typing(threadID: "t1", started: true)) == nil)
    }

    @Test func whatIsAnsweredFromTheSessionAndWhatIsRefused() throws {
        guard case .listThreads = try ChatCommand(.listThreads, settings: Self.settings, now: Self.now),
            case .status = try ChatCommand(.custom(command: "chat-status", arguments: [:]), settings: Self.settings, now: Self.now),
            case .preChatForm = try ChatCommand(.custom(command: "pre-chat-form", arguments: [:]), settings: Self.settings, now: Self.now)
        else {
            Issue.record("not answered from the session")
            return
        }
        #expect(throws: ChannelError(.illegalState, "cxone-chat: the message is empty")) {
            try ChatCommand(.sendMessage(threadID: nil, text: ""), settings: Self.settings, now: Self.now)
        }
        #expect(throws: ChannelError(.illegalState, #"cxone-chat: typing state "paused" is neither started nor stopped"#)) {
            try ChatCommand(.custom(command: "chat-typing", arguments: ["state": "paused"]), settings: Self.settings, now: Self.now)
        }
        let unknown = #expect(throws: ChannelError.self) { try ChatCommand(.suppress, settings: Self.settings, now: Self.now) }
        #expect(unknown?.code == .unsupported && unknown?.message.hasPrefix("cxone-chat: no suppress requests here; it knows prepare,") == true)
    }
}
