import AttendantControl
import Systemd
import TestSupport
import Testing

/// ControlClient against the test peer on a private bus, in-process.
@Suite(.timeLimit(.minutes(1))) struct ClientTests {
    @Test func callsReachTheirMethodsWithTheirArguments() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let client = try await ControlClient.connect(.custom(bus.address))

        #expect(try await client.status() == Fixtures.status)
        #expect(try await client.channels() == Fixtures.channels)
        #expect(try await client.contacts(limit: 1) == [Fixtures.contacts[0]])
        try await client.accept(contact: "desk-2")
        try await client.decline(contact: "desk-1", channel: "desk")
        try await client.renewToken(channel: "voice")
        #expect(try await client.reload() == Fixtures.status.status)
        try await client.setDoNotDisturb(true)

        let m = ControlInterface.Method.self
        #expect(
            await peer.calls == [
                .init(member: m.getStatus, arguments: []),
                .init(member: m.listChannels, arguments: []),
                .init(member: m.listContacts, arguments: [.uint32(1)]),
                .init(member: m.accept, arguments: [.string(""), .string("desk-2")]),
                .init(member: m.decline, arguments: [.string("desk"), .string("desk-1")]),
                .init(member: m.renewToken, arguments: [.string("voice")]),
                .init(member: m.reload, arguments: []),
                .init(member: m.setDoNotDisturb, arguments: [.boolean(true)]),
            ]
        )
        await client.connection.close()
        await peer.stop()
    }

    @Test func chatCallsReachTheirMethodsAndThreadsComeBackWhole() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let client = try await ControlClient.connect(.custom(bus.address))
        try await client.chatPrepare(channel: "web")
        try await client.chatConnect(channel: "web")
        try await client.chatViewPage(channel: "web", title: "Home", url: "https://example.test/")
        #expect(try await client.chatThreads(channel: "web") == Fixtures.threads)
        #expect(try await client.chatOpenThread(channel: "web", thread: "t1") == Fixtures.threads[0])
        #expect(
            try await client.chatCreateThread(channel: "web", fields: ["name": "New"])
                == ChatThreadRecord(id: "thread-3", name: "New", state: "pending")
        )
        try await client.chatSendMessage(channel: "web", text: "Hello")
        try await client.chatEndConversation(channel: "web", thread: "t1")
        await #expect(throws: ControlClientError(code: .refused, name: ControlError.serverError, message: "no thread \"t9\"")) {
            _ = try await client.chatOpenThread(channel: "web", thread: "t9")
        }
        let m = ControlInterface.Method.self
        #expect(
            await peer.calls.map(\.member) == [
                m.chatPrepare, m.chatConnect, m.chatViewPage, m.chatListThreads, m.chatOpenThread, m.chatCreateThread, m.chatSendMessage,
                m.chatEndConversation, m.chatOpenThread,
            ]
        )
        await client.connection.close()
        await peer.stop()
    }

    @Test func errorRepliesKeepTheirNameAndMessage() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.fail(ControlInterface.Method.accept, ControlError.noSuchContact, "no contact desk-9 on any channel")
        let client = try await ControlClient.connect(.custom(bus.address))
        await #expect(throws: ControlClientError(code: .refused, name: ControlError.noSuchContact, message: "no contact desk-9 on any channel")) {
            try await client.accept(contact: "desk-9")
        }
        await client.connection.close()
        await peer.stop()
    }

    @Test func notRunningAndGoneAreTheirOwnClass() async throws {
        let bus = try await PrivateBus()
        await #expect(throws: ControlClientError.notRunning(.custom(bus.address))) {
            _ = try await ControlClient.connect(.custom(bus.address))
        }
        // The daemon leaves between two calls.
        let peer = try await ControlPeer.start(on: bus.address)
        let client = try await ControlClient.connect(.custom(bus.address))
        await peer.stop()
        await #expect(throws: ControlClientError.notRunning(.custom(bus.address))) {
            _ = try await client.channels()
        }
        await client.connection.close()
        do {
            _ = try await ControlClient.connect(.custom("unix:path=\(bus.folder)/no-such-socket"))
            Issue.record("connected to a bus that does not exist")
        } catch {
            #expect(error.code == .noBus)
            #expect(error.message.contains("systemctl --user start attendantd"))
        }
    }

    @Test func aReplyOfTheWrongShapeIsReported() async throws {
        let bus = try await PrivateBus()
        let server = try await BusConnection.open(.custom(bus.address))
        #expect(try await server.requestName(ControlInterface.busName) == .acquired)
        try await server.export(
            BusObject(
                path: ControlInterface.objectPath,
                interface: ControlInterface.interface,
                methods: [.init(ControlInterface.Method.listChannels, outputs: [.init("channels", "as")]) { _ in [.strings(["desk"])] }],
                signals: []
            )
        )
        let client = try await ControlClient.connect(.custom(bus.address))
        do {
            _ = try await client.channels()
            Issue.record("accepted an array of strings as channels")
        } catch {
            #expect(error.code == .failed)
            #expect(error.message.contains("unexpected shape"))
        }
        await client.connection.close()
        await server.close()
    }

    @Test func signalsArriveDecoded() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let client = try await ControlClient.connect(.custom(bus.address))
        let signals = try await client.signals()
        _ = try await client.daemonOwner()  // the match is in place once this round trip is answered
        await peer.emit(.channelStateChanged(channel: "desk", state: "recovering", detail: "refused"))
        await peer.emit(.channelEvent(channel: "desk", event: "contact-ended", details: ["contact": .string("c1")]))
        await peer.emit(.doNotDisturbChanged(true))
        var received: [ControlSignal] = []
        for await signal in signals {
            received.append(signal)
            if received.count == 3 { break }
        }
        #expect(
            received == [
                .channelStateChanged(channel: "desk", state: "recovering", detail: "refused"),
                .channelEvent(channel: "desk", event: "contact-ended", details: ["contact": .string("c1")]),
                .doNotDisturbChanged(true),
            ]
        )
        await client.connection.close()
        await peer.stop()
    }
}
