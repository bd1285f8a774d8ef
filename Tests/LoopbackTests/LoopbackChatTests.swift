import AttendantPluginAPI
import AttendantPluginTestKit
import Loopback
import Testing

/// The Loopback plugin's in-memory chat through its factory, on the test kit's host and manual clock, its
/// `run()` beside each test as the host runs it.
@Suite(.timeLimit(.minutes(1))) struct LoopbackChatTests {
    let factory = LoopbackPluginFactory()

    func chat(_ settings: [String: SettingValue] = [:], host: InMemoryChannelHost = InMemoryChannelHost()) throws -> any Channel {
        let settings = ChannelSettings(["contact-kind": .string("chat")].merging(settings) { $1 })
        let channel = try self.factory.makeChannel(settings: settings, host: host)
        #expect(settings.unknownKeys.isEmpty)
        return channel
    }

    /// The message of the ChannelError `body` throws, with its code.
    func failure(_ body: () async throws -> ChannelReply) async -> ChannelError? {
        do {
            let reply = try await body()
            Issue.record("expected an error, got \(reply)")
            return nil
        } catch {
            return error as? ChannelError
        }
    }

    @Test func aWholeConversation() async throws {
        let host = InMemoryChannelHost(channelName: "web")
        let channel = try self.chat(host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            #expect(try await channel.perform(.prepare) == .done)
            #expect(try await channel.perform(.viewPage(title: "Pricing", url: "https://example.test/pricing")) == .done)
            #expect(try await channel.perform(.connect) == .done)
            #expect(try await channel.perform(.listThreads) == .threads([]))

            guard case .thread(let created) = try await channel.perform(.createThread(customFields: ["name": "Billing"])) else {
                Issue.record("create-thread answers with the thread")
                return
            }
            #expect(created == ChatThread(id: "thread-1", name: "Billing", state: .ready))
            #expect(try await channel.perform(.sendMessage(threadID: nil, text: "Hello")) == .done)
            guard case .thread(let second) = try await channel.perform(.createThread(customFields: [:])) else { return }
            #expect(second.id == "thread-2" && second.name == "Loopback thread 2")
            #expect(try await channel.perform(.sendMessage(threadID: "thread-1", text: "Still there?")) == .done)

            guard case .thread(let opened) = try await channel.perform(.openThread(threadID: "thread-1")) else { return }
            #expect(opened.lastMessages.map(\.text) == ["Hello", "Still there?"])
            #expect(opened.lastMessages.allSatisfy { $0.direction == .toAgent && $0.threadID == "thread-1" && $0.sentAt == host.now() })
            // Opening made thread-1 the current one: end without a thread closes it.
            #expect(try await channel.perform(.endConversation(threadID: nil)) == .done)
            guard case .threads(let threads) = try await channel.perform(.listThreads) else { return }
            #expect(threads.map(\.id) == ["thread-1", "thread-2"])
            #expect(threads.map(\.state) == [.closed, .ready])

            let events = host.events
            #expect(
                events.map(\.name) == [
                    "chat-state-changed", "chat-state-changed", "chat-state-changed", "thread-updated", "thread-updated", "thread-updated",
                    "thread-updated", "thread-updated",
                ]
            )
            guard case .chatStateChanged(let last) = events[2], case .threadUpdated(let closed) = events.last else { return }
            #expect(last == .ready)
            #expect(closed.id == "thread-1" && closed.state == .closed)
            // Without echo-agent nobody answers.
            #expect(!events.contains { $0.name == "message-received" })
            await channel.stopListening()
        }
    }

    @Test func requestsOutOfOrderSayWhatToDoFirst() async throws {
        let channel = try self.chat()
        try await whileRunning(channel) {
            let connect = await self.failure { try await channel.perform(.connect) }
            #expect(connect == ChannelError(.illegalState, "loopback: connect before prepare (the chat is initial); prepare the chat first"))
            let view = await self.failure { try await channel.perform(.viewPage(title: "t", url: "u")) }
            #expect(view?.code == .illegalState)
            let create = await self.failure { try await channel.perform(.createThread(customFields: [:])) }
            #expect(
                create
                    == ChannelError(.illegalState, "loopback: create-thread before connect (the chat is initial); prepare and connect the chat first")
            )
            _ = try await channel.perform(.prepare)
            #expect(try await channel.perform(.prepare) == .done, "prepare twice is harmless")
            let send = await self.failure { try await channel.perform(.sendMessage(threadID: nil, text: "hi")) }
            #expect(send == ChannelError(.illegalState, "loopback: send-message before connect (the chat is prepared); connect the chat first"))
            _ = try await channel.perform(.connect)
            let again = await self.failure { try await channel.perform(.prepare) }
            #expect(again == ChannelError(.illegalState, "loopback: prepare while the chat is ready; it is prepared already"))

            let noThread = await self.failure { try await channel.perform(.sendMessage(threadID: nil, text: "hi")) }
            #expect(
                noThread
                    == ChannelError(.illegalState, "loopback: send-message without a thread, and none was created or opened; create a thread first")
            )
            let unknown = await self.failure { try await channel.perform(.openThread(threadID: "thread-9")) }
            #expect(unknown == ChannelError(.server, "loopback: no thread \"thread-9\"; there are no threads yet"))
            _ = try await channel.perform(.createThread(customFields: [:]))
            _ = try await channel.perform(.endConversation(threadID: "thread-1"))
            let closed = await self.failure { try await channel.perform(.sendMessage(threadID: "thread-1", text: "hi")) }
            #expect(closed == ChannelError(.illegalState, "loopback: send-message on thread thread-1, which is closed; create a new thread"))
            let endAgain = await self.failure { try await channel.perform(.endConversation(threadID: nil)) }
            #expect(endAgain?.code == .illegalState)
            let other = await self.failure { try await channel.perform(.openThread(threadID: "x")) }
            #expect(other == ChannelError(.server, "loopback: no thread \"x\"; threads: thread-1"))
        }
    }

    @Test func theEchoAgentAnswersASecondLater() async throws {
        let host = InMemoryChannelHost()
        let channel = try self.chat(["echo-agent": .bool(true)], host: host)
        try await whileRunning(channel) {
            try await channel.listen()
            _ = try await channel.perform(.prepare)
            _ = try await channel.perform(.connect)
            _ = try await channel.perform(.createThread(customFields: [:]))
            let sentAt = host.now()
            _ = try await channel.perform(.sendMessage(threadID: nil, text: "Hello"))
            await host.manualClock.waitForSleepers(atLeast: 1)
            host.manualClock.advance(by: .milliseconds(999))
            #expect(!host.events.contains { $0.name == "message-received" })
            host.manualClock.advance(by: .milliseconds(1))
            var event = await host.nextEvent()
            while event.name != "message-received" { event = await host.nextEvent() }
            guard case .messageReceived(let reply) = event else { return }
            #expect(reply.text == "Echo: Hello" && reply.direction == .fromAgent && reply.threadID == "thread-1")
            #expect(reply.sender.displayName == "Loopback Agent")
            #expect(reply.sentAt == sentAt + .seconds(1))
            guard case .threadUpdated(let thread) = await host.nextEvent() else {
                Issue.record("the thread is updated with the reply")
                return
            }
            #expect(thread.lastMessages.map(\.text) == ["Hello", "Echo: Hello"])

            // A thread that closes before the agent answers gets no answer; stopping cancels pending ones.
            _ = try await channel.perform(.sendMessage(threadID: nil, text: "Bye"))
            _ = try await channel.perform(.endConversation(threadID: nil))
            await host.manualClock.waitForSleepers(atLeast: 1)
            host.manualClock.advance(by: .seconds(1))
            await host.manualClock.waitForSleepers(where: { $0.isEmpty })
            guard case .threads(let threads) = try await channel.perform(.listThreads) else { return }
            #expect(threads.first?.lastMessages.map(\.text) == ["Hello", "Echo: Hello", "Bye"])
            _ = try await channel.perform(.createThread(customFields: [:]))
            _ = try await channel.perform(.sendMessage(threadID: nil, text: "Anyone?"))
            await host.manualClock.waitForSleepers(atLeast: 1)
            await channel.stopListening()
            await host.manualClock.waitForSleepers(where: { $0.isEmpty })
            #expect(host.events.filter { $0.name == "message-received" }.count == 1)
        }
    }

    @Test func otherKindsDoNotChat() async throws {
        let channel = try self.factory.makeChannel(settings: ChannelSettings([:]), host: InMemoryChannelHost())
        try await whileRunning(channel) {
            let error = await self.failure { try await channel.perform(.prepare) }
            #expect(error == ChannelError(.unsupported, "loopback: no prepare requests here; chat requests need contact-kind = \"chat\""))
        }
    }

    @Test func echoAgentMustBeABoolean() {
        #expect {
            try self.factory.makeChannel(
                settings: ChannelSettings(["echo-agent": .string("yes")], scope: "[channel.loopback]"),
                host: InMemoryChannelHost()
            )
        } throws: { error in
            "\(error)".contains("echo-agent")
        }
    }
}
