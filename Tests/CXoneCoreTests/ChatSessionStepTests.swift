import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import Testing

/// ``ChatSession``, what the CXoneChat driver runs on the kit's `SessionDriver`, with no host: the socket
/// as the kit's link, what the host hears of a step and in what order, and when a user's operation is
/// over.
@Suite struct ChatSessionStepTests {
    typealias Action = ChatSession.Action

    static let settings = ChatSession.Settings(
        endpoints: CXoneEndpoints(socket: "wss://chat.example.com", chat: "https://chat.example.com"),
        firstName: "Ada",
        lastName: nil,
        sdkVersion: "test-1",
        gatewayDescription: "wss://gateway"
    )

    static func session(_ machine: ChatStateMachine = ChatDriver().machine) -> ChatSession {
        ChatSession(machine: machine, contacts: ChatContactHistory(), settings: Self.settings)
    }

    /// Each action in a few words, for comparing in order.
    static func words(_ actions: [Action]) -> [String] {
        actions.map { action in
            switch action {
            case .openLink(let request): "open \(request.url)"
            case .closeLink: "close"
            case .writeLink: "write"
            case .cancelOperations(let tag): "cancel operations \(tag)"
            case .work(.machine(let action)): "machine \(action)".prefix { $0 != "(" }.description
            case .work(.download(let url, let large)): "download \(url) \(large == nil ? "unknown" : "known")"
            case .write(let write): "keep \(write.key) \(write.value ?? "removed")"
            case .setTimer(.machine(let id), _): "set \(id.kind)"
            case .setTimer(.request(let id), _): "deadline \(id)"
            case .cancelTimer(.machine(let id)): "cancel \(id.kind)"
            case .cancelTimer(.request(let id)): "end deadline \(id)"
            case .setTimer(.refreshToken, _): "set refresh"
            case .cancelTimer(.refreshToken): "cancel refresh"
            case .emit(let event): "emit \(event)".prefix { $0 != "(" }.description
            case .log(let level, let message): "\(level) \(message)"
            case .replied(let id, .success(let reply)): "replied \(id) \(reply)"
            case .replied(let id, .failure(let error)): "failed \(id) \(error.message)"
            @unknown default: "\(action)"
            }
        }
    }

    static func prepare(_ session: inout ChatSession, id: UInt64 = 1) throws -> [Action] {
        let begun = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: id)
        let configured = session.run { $0.handle(.channelConfigurationFetched(.init())) }
        return begun + configured + session.run { $0.handle(.visitorStored) }
    }

    @Test func anOperationIsRepliedByTheStepThatSettlesItAndItsDeadlineEnds() throws {
        var session = Self.session()
        let begun = try session.begin(.prepare(brandID: ChatDriver.brandID, channelID: ChatDriver.channelID, timeout: .seconds(30)), id: 1)
        #expect(Self.words(begun).first == "deadline 1")
        #expect(Self.words(begun).contains("machine fetchChannelConfiguration"))
        #expect(!Self.words(begun).contains { $0.hasPrefix("replied") })
        _ = session.run { $0.handle(.channelConfigurationFetched(.init())) }
        let stored = Self.words(session.run { $0.handle(.visitorStored) })
        #expect(Array(stored.suffix(2)) == ["end deadline 1", "replied 1 done"])

        // Over once started: no deadline, the reply in the same step.
        let viewed = Self.words(try session.begin(.viewPage(title: "Desk", url: "https://example.com/desk", at: ChatDriver().wallClock), id: 2))
        #expect(viewed.last == "replied 2 done")
        #expect(!viewed.contains { $0.hasPrefix("deadline") })
    }

    @Test func anOperationNoStepSettlesHearsWhoDidNotAnswerWhenItsDeadlinePasses() throws {
        var session = Self.session()
        _ = try Self.prepare(&session)
        let begun = Self.words(try session.begin(.connect(channelDescription: "brand 1386", timeout: .seconds(7)), id: 2))
        #expect(begun.contains("deadline 2"))
        let expired = Self.words(session.timerFired(.request(2), now: ChatDriver().wallClock))
        #expect(expired == ["failed 2 cxone-chat: no answer from wss://gateway within 7 s (the chat is connecting)"])
        #expect(session.timerFired(.request(2), now: ChatDriver().wallClock).isEmpty, "a deadline fires once")

        // A forgotten operation hears nothing at its deadline.
        _ = try session.begin(.connect(channelDescription: "brand 1386", timeout: .seconds(7)), id: 3)
        session.forgetRequest(3)
        #expect(session.timerFired(.request(3), now: ChatDriver().wallClock).isEmpty)
    }

    @Test func anOpenedThreadIsTheOneWorkedInAndMarkedReadOnceTheServerSentIt() throws {
        var driver = ChatDriver()
        var thread = ChatThread(id: "Thread-1", state: .ready)
        thread.lastMessages = [driver.message("m1", thread: "Thread-1")]
        driver.readySingleThread(thread: thread)
        var session = Self.session(driver.machine)

        #expect(throws: ChannelError.self) { try session.begin(.openThread("nowhere", timeout: .seconds(5)), id: 3) }
        let begun = Self.words(try session.begin(.openThread("THREAD-1", timeout: .seconds(5)), id: 4))
        #expect(begun.first == "deadline 4" && begun.contains { $0.hasPrefix("write") }, "the recovery frame goes out: \(begun)")
        #expect(session.currentThread == nil, "not before the server answers")

        let recovered = Self.words(session.run { $0.handle(.threadRecovered(thread, caseID: "case-1", agent: nil)) })
        let reply = try #require(recovered.firstIndex { $0.hasPrefix("replied 4 thread") })
        #expect(recovered[(reply + 1)...].contains { $0.hasPrefix("write") }, "then the messages are marked read: \(recovered)")
        #expect(session.currentThread == "thread-1")
    }

    @Test func theSocketIsTheKitsLinkOpenedWrittenAndClosedAsActions() throws {
        var session = Self.session()
        _ = try Self.prepare(&session)
        let connecting = Self.words(try session.begin(.connect(channelDescription: "brand 1386", timeout: .seconds(7)), id: 2))
        let open = try #require(connecting.first { $0.hasPrefix("open ") }, "\(connecting)")
        #expect(open.hasPrefix("open wss://chat.example.com?brandId=1386&channelId="), "the gateway's socket, for the brand and the visitor")
        #expect(session.statusFields()["connected"] == "no")
        let opened = Self.words(session.socketOpened())
        #expect(opened.contains("write"), "AuthorizeCustomer goes out once the socket opened: \(opened)")
        #expect(session.statusFields()["connected"] == "yes")

        // The machine closes it (the kit then drops what it still brings).
        let closed = Self.words(session.run { $0.disconnect() })
        #expect(closed.contains("close"))
        #expect(session.statusFields()["connected"] == "no")
    }

    @Test func theHostsServerIsTheGatewayInTheReasonASocketClosed() throws {
        var session = Self.session()
        _ = try Self.prepare(&session)
        _ = try session.begin(.connect(channelDescription: "brand 1386", timeout: .seconds(7)), id: 2)
        _ = session.socketOpened()
        let lost = Self.words(session.socketClosed(reason: "the server closed the connection (1001)"))
        #expect(lost.first == "info cxone-chat: the connection to wss://gateway ended: the gateway closed the connection (1001)")
    }

    /// The contact is told, then kept, then the message told: the daemon records what a channel reported
    /// before its next write lands, so the kept record never claims a contact the history lacks.
    @Test func anAgentsFirstMessageIsToldAsAContactThenKeptBeforeTheMessage() throws {
        let ready = ChatOutboxTests.ready()
        var session = Self.session(ready.machine)
        let message = ready.message("m-1", thread: "thread-1", "Hello, how can I help?")
        let words = Self.words(session.run { $0.handle(.messageCreated(message, caseID: "case-1")) })
        let told = words.filter { $0.hasPrefix("keep contact.") || $0.hasPrefix("emit") }
        let start = try #require(told.firstIndex(of: "emit incomingContact"), "\(words)")
        #expect(Array(told[start...].prefix(3)) == ["emit incomingContact", "keep contact.thread-1 open", "emit messageReceived"], "\(words)")
        #expect(session.contacts.threads == ["thread-1": false])

        // The same thread again is no new contact.
        let again = Self.words(session.run { $0.handle(.messageCreated(ready.message("m-2", thread: "thread-1", "Still there?"), caseID: "case-1")) })
        #expect(!again.contains { $0.hasPrefix("keep contact.") })
    }

    @Test func aLostChatIsToldToTheHostOnceAndOnlyWhileItListens() throws {
        var session = Self.session(ChatOutboxTests.ready().machine)
        session.presence.connected()
        let gone = Self.words(session.run { $0.disconnect() })
        #expect(gone.filter { $0.hasPrefix("emit stoppedListening") }.count == 1, "\(gone)")
        #expect(session.presence.listening == false)

        var background = Self.session(ChatOutboxTests.ready().machine)
        background.presence.connected()
        background.presence.background = true
        #expect(!Self.words(background.run { $0.disconnect() }).contains { $0.hasPrefix("emit stoppedListening") })
    }
}
