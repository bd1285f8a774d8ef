import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import AttendantPluginTestKit
import Foundation
import Synchronization
import TestSupport
import Testing

/// The ``SessionDriver``'s link slot and tagged operations, with a toy session on the test kit's in-memory
/// network: what the session hears of its link, in what order, from which link, and what a close, a
/// reopening, a failure and the channel's end do.
@Suite(.timeLimit(.minutes(1))) struct SessionDriverLinkTests {
    /// Hears its link and writes what it is told.
    struct Chatter: ChannelSession {
        enum Timer: Hashable, Sendable { case none }
        typealias Action = SessionAction<Timer, String>

        var heard: [String] = []

        mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] { [] }
        mutating func forgetRequest(_ id: UInt64) {}
    }

    static let url = "wss://chat.example.com/socket"

    final class Rig: Sendable {
        let host: InMemoryChannelHost
        let driver: SessionDriver<Chatter>
        let worker: Task<Void, Never>
        let done = Recorder<String>()

        init(network: (any ChannelNetwork)? = nil) {
            let host = network.map { InMemoryChannelHost(network: $0) } ?? InMemoryChannelHost()
            let driver = SessionDriver<Chatter>(host: host, prefix: "toy")
            let done = self.done
            self.host = host
            self.driver = driver
            driver.load(Chatter())
            self.worker = Task {
                await driver.run({ work in done.add(work) }) { event in
                    switch event {
                    case .opened:
                        {
                            $0.heard.append("opened")
                            return []
                        }
                    case .message(let bytes) where bytes == Array("ignore".utf8): nil
                    case .message(let bytes):
                        {
                            $0.heard.append(String(decoding: bytes, as: UTF8.self))
                            return []
                        }
                    case .closed(let reason):
                        {
                            $0.heard.append("closed: \(reason)")
                            return []
                        }
                    @unknown default: nil
                    }
                }
            }
        }

        deinit { self.worker.cancel() }

        var heard: [String] { self.driver.withSession { $0.heard } ?? [] }

        func heard(_ expected: [String]) async throws {
            try await eventually("the session heard \(expected)") { self.heard == expected }
        }

        func step(_ actions: [Chatter.Action]) {
            self.driver.step { _ in actions }
        }

        func open() async throws -> WebSocketPeer {
            self.step([.openLink(WebSocketRequest(url: SessionDriverLinkTests.url))])
            return try await self.host.inMemoryNetwork.nextWebSocket()
        }
    }

    @Test func theSessionHearsItsLinkInOrderAndWritesGoOutInOrderWithTheWork() async throws {
        let rig = Rig()
        rig.step([.writeLink(Array("hello".utf8)), .openLink(WebSocketRequest(url: Self.url))])
        rig.step([.writeLink(Array("early write".utf8)), .work("after the early write")])
        let socket = try await rig.host.inMemoryNetwork.nextWebSocket()
        #expect(socket.request.url == Self.url)
        try await rig.heard(["opened"])
        #expect(try await socket.nextMessage() == .text("early write"), "a write asked for while opening waits for the link")
        #expect(rig.host.logRecords.all.contains { $0.message == "toy: a message was not sent: the link is not open" })

        socket.send(text: "one")
        socket.send(text: "ignore")
        socket.send(binary: Array("two".utf8))
        try await rig.heard(["opened", "one", "two"])
        rig.step([.work("first"), .writeLink(Array("a".utf8)), .writeLink(Array("b".utf8)), .work("second")])
        #expect(try await rig.done.next() == "after the early write")
        #expect(try await rig.done.next() == "first")
        #expect(try await socket.nextMessage() == .text("a"))
        #expect(try await socket.nextMessage() == .text("b"))
        #expect(try await rig.done.next() == "second")
    }

    /// The link's reader is called as directly for the 200th message as for the first. Kept in the driver's
    /// `Mutex` as a bare function value, it came out of every read wrapped in two more reabstraction thunks,
    /// and the 200th message went through about 400 calls more than the first: the full-size fault campaign's
    /// CXone chat, hours old, spent seconds of an event loop re-reading its threads (issue 34).
    @Test func theLinksReaderIsCalledAsDirectlyForTheLastMessageAsForTheFirst() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Chatter>(host: host, prefix: "toy")
        driver.load(Chatter())
        let depths = Recorder<Int>()
        let worker = Task {
            await driver.run({ _ in }) { event in
                guard case .message = event else { return nil }
                depths.add(Thread.callStackSymbols.count)
                return nil
            }
        }
        defer { worker.cancel() }
        driver.step { _ in [.openLink(WebSocketRequest(url: Self.url))] }
        let socket = try await host.inMemoryNetwork.nextWebSocket()
        var read: [Int] = []
        for index in 0..<200 {
            socket.send(text: "message \(index)")
            read.append(try await depths.next())
        }
        let (first, last) = (read[0], read[199])
        #expect(last <= first + 8, "the 200th message was read \(last - first) calls deeper than the first")
    }

    /// The link's reader runs on the driver's own tasks, not on the thread that delivered the message: in
    /// the daemon that thread is a swift-nio event loop carrying other sockets, and a reader that took long
    /// (a chat re-reading its threads after a restart) held every one of them back, voice's among them
    /// (issue 34). The reader here waits, at most 10 s, for the delivering call to have returned.
    @Test func aSlowReaderHoldsNotTheThreadThatDeliveredTheMessage() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Chatter>(host: host, prefix: "toy")
        driver.load(Chatter())
        let delivered = Atomic<Bool>(false)
        let outcome = Mutex<String?>(nil)
        let worker = Task {
            await driver.run({ _ in }) { event in
                guard case .message = event else { return nil }
                let deadline = ContinuousClock.now + .seconds(10)
                while !delivered.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(1_000) }
                let returned = delivered.load(ordering: .acquiring)
                outcome.withLock { $0 = returned ? "read after the delivery returned" : "read while the delivery waited for it" }
                return nil
            }
        }
        defer { worker.cancel() }
        driver.step { _ in [.openLink(WebSocketRequest(url: Self.url))] }
        let socket = try await host.inMemoryNetwork.nextWebSocket()
        socket.send(text: "slow")
        delivered.store(true, ordering: .releasing)
        try await eventually("the message was read") { outcome.withLock { $0 } != nil }
        #expect(outcome.withLock { $0 } == "read after the delivery returned")
    }

    @Test func whatArrivesBeforeTheUpgradeReturnsComesAfterOpened() async throws {
        let network = EarlyTalker(inner: InMemoryNetwork())
        let rig = Rig(network: network)
        rig.step([.openLink(WebSocketRequest(url: Self.url))])
        let socket = try await network.inner.nextWebSocket()
        try await rig.heard(["opened", "before the upgrade returned"])
        socket.send(text: "after")
        try await rig.heard(["opened", "before the upgrade returned", "after"])
    }

    @Test func aClosedLinkWritesWhatCameBeforeThenClosesAndIsHeardNoMore() async throws {
        let rig = Rig()
        let socket = try await rig.open()
        try await rig.heard(["opened"])
        rig.step([.writeLink(Array("bye".utf8)), .closeLink, .writeLink(Array("too late".utf8))])
        #expect(try await socket.nextMessage() == .text("bye"))
        #expect(try await socket.nextMessage() == .closed)
        #expect(!socket.send(text: "after the close"))
        await rig.driver.drain()
        #expect(rig.heard == ["opened"], "no message and no closed event after the session let go")
    }

    @Test func reopeningLetsTheOldLinkGoAndOnlyTheNewOneIsHeard() async throws {
        let rig = Rig()
        let first = try await rig.open()
        try await rig.heard(["opened"])
        let second = try await rig.open()
        #expect(try await first.nextMessage() == .closed)
        try await rig.heard(["opened", "opened"])
        second.send(text: "from the second")
        first.send(text: "from the first")
        try await rig.heard(["opened", "opened", "from the second"])
        rig.step([.writeLink(Array("to the current".utf8))])
        #expect(try await second.nextMessage() == .text("to the current"))
    }

    @Test func thePeersCloseIsHeardOnceAndEndsTheLink() async throws {
        let rig = Rig()
        let socket = try await rig.open()
        try await rig.heard(["opened"])
        socket.send(text: "last")
        socket.close(code: 1001, reason: "going away")
        try await rig.heard(["opened", "last", "closed: the server closed the connection (1001: going away)"])
        rig.step([.writeLink(Array("nobody".utf8))])
        await rig.driver.drain()
        #expect(socket.messages.isEmpty, "nothing is written on an ended link")
    }

    @Test func aRefusedUpgradeIsHeardAsClosedWithTheHostsReason() async throws {
        let rig = Rig()
        rig.host.inMemoryNetwork.refuseWebSockets(
            to: "wss://chat.example.com",
            with: NetworkError(.protocolViolation, "upgrade refused (HTTP 403)"),
            times: 1
        )
        rig.step([.openLink(WebSocketRequest(url: Self.url)), .writeLink(Array("lost".utf8))])
        try await rig.heard(["closed: upgrade refused (HTTP 403)"])
        let socket = try await rig.open()
        try await rig.heard(["closed: upgrade refused (HTTP 403)", "opened"])
        await rig.driver.drain()
        #expect(socket.messages.isEmpty, "the write asked for while the refused link opened went with it")
    }

    @Test func theChannelsEndClosesItsLink() async throws {
        let rig = Rig()
        let socket = try await rig.open()
        try await rig.heard(["opened"])
        rig.worker.cancel()
        await rig.worker.value
        #expect(try await socket.nextMessage() == .closed)
    }

    @Test func aStopLetsGoOfTheLink() async throws {
        let rig = Rig()
        let socket = try await rig.open()
        try await rig.heard(["opened"])
        await rig.driver.stop(failing: ChannelError(.transient, "toy: stopping")) { _ in [.writeLink(Array("last words".utf8))] }
        #expect(try await socket.nextMessage() == .text("last words"))
        #expect(try await socket.nextMessage() == .closed)
    }

    @Test func aCancelledTaggedOperationEndsAndItsStepIsDroppedWhileOthersGoOn() async throws {
        let rig = Rig()
        let ended = Recorder<String>()
        for tag in ["held", "other"] {
            rig.driver.concurrently(tag: tag) {
                try? await rig.host.clock.sleep(for: .seconds(3600))
                ended.add("\(tag) cancelled: \(Task.isCancelled)")
                return {
                    $0.heard.append("\(tag) answered")
                    return []
                }
            }
        }
        await rig.host.manualClock.waitForSleepers(atLeast: 2)
        rig.step([.cancelOperations(tagged: "held")])
        #expect(try await ended.next() == "held cancelled: true")
        rig.host.manualClock.advance(by: .seconds(3600))
        #expect(try await ended.next() == "other cancelled: false")
        try await rig.heard(["other answered"])
    }

    @Test func anHTTPCallsOutcomeIsReadIntoTheSessionsNextStep() async throws {
        let rig = Rig()
        let url = "https://chat.example.com/config"
        rig.host.inMemoryNetwork.answer("GET", url, with: NetworkResponse(status: 200, reason: "OK", body: Array("blue".utf8)))
        rig.host.inMemoryNetwork.answer("GET", url + "/gone", with: .failure(NetworkError(.connection, "GET \(url)/gone failed: refused")))
        for path in ["", "/gone"] {
            rig.driver.send(NetworkRequest(method: "GET", url: url + path)) { outcome in
                let heard: String
                switch outcome {
                case .success(let response): heard = "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
                case .failure(let error): heard = error.message
                }
                return {
                    $0.heard.append(heard)
                    return []
                }
            }
        }
        try await eventually("both answers were heard") { rig.heard.count == 2 }
        #expect(Set(rig.heard) == ["200 blue", "GET \(url)/gone failed: refused"])
    }

    @Test func aTaggedHTTPCallIsCancelledWithItsTagAndNeverSteps() async throws {
        let network = InMemoryNetwork()
        let ended = Recorder<String>()
        network.handleRequests { _ in
            try? await Task.sleep(for: .seconds(3600))
            ended.add("held call ended, cancelled: \(Task.isCancelled)")
            return NetworkResponse(status: 200, reason: "OK", body: [])
        }
        let after = "https://chat.example.com/after"
        network.answer("GET", after, with: NetworkResponse(status: 204, reason: "No Content"))
        let rig = Rig(network: network)
        rig.driver.send(NetworkRequest(method: "POST", url: "https://chat.example.com/connect", timeout: .seconds(7200)), tag: "held") { _ in
            {
                $0.heard.append("held answered")
                return []
            }
        }
        try await eventually("the call reached the network") { network.requests.count == 1 }
        rig.step([.cancelOperations(tagged: "held")])
        #expect(try await ended.next() == "held call ended, cancelled: true")
        rig.driver.send(NetworkRequest(method: "GET", url: after)) { outcome in
            let status = (try? outcome.get())?.status
            return {
                $0.heard.append("after: \(status.map(String.init) ?? "failed")")
                return []
            }
        }
        try await rig.heard(["after: 204"])
    }

    @Test func aTaggedOperationCancelledBeforeItStartsNeverSteps() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Chatter>(host: host, prefix: "toy")
        driver.load(Chatter())
        driver.concurrently(tag: "held") {
            {
                $0.heard.append("held answered")
                return []
            }
        }
        driver.concurrently(tag: "other") {
            {
                $0.heard.append("other answered")
                return []
            }
        }
        driver.step { _ in [.cancelOperations(tagged: "held")] }
        let worker = Task { await driver.run { _ in } }
        try await eventually("the other operation answered") { driver.withSession { $0.heard } == ["other answered"] }
        driver.concurrently(tag: "last") {
            {
                $0.heard.append("last answered")
                return []
            }
        }
        try await eventually("the operations ran in order") { driver.withSession { $0.heard } == ["other answered", "last answered"] }
        worker.cancel()
        await worker.value
    }
}

/// A network whose server speaks before the channel's upgrade returns (a greeting in the same packet as the
/// 101), so the host reports a message before `openWebSocket` returns.
final class EarlyTalker: ChannelNetwork {
    let inner: InMemoryNetwork

    init(inner: InMemoryNetwork) { self.inner = inner }

    func openWebSocket(
        _ request: WebSocketRequest,
        events: @escaping @Sendable (WebSocketEvent) -> Void
    ) async throws(NetworkError)
        -> any WebSocketConnection
    {
        let connection = try await self.inner.openWebSocket(request, events: events)
        self.inner.webSockets.last?.send(text: "before the upgrade returned")
        return connection
    }

    func send(_ request: NetworkRequest) async throws(NetworkError) -> NetworkResponse { try await self.inner.send(request) }

    func openDatagramFlow(
        to host: String,
        port: Int,
        options: DatagramOptions,
        receive: @escaping @Sendable (DatagramEvent) -> Void
    )
        async throws(NetworkError) -> any DatagramFlow
    {
        try await self.inner.openDatagramFlow(to: host, port: port, options: options, receive: receive)
    }

    func openStreamFlow(
        to host: String,
        port: Int,
        options: StreamOptions,
        receiver: @escaping @Sendable (any StreamConnection) -> any StreamReceiver
    )
        async throws(NetworkError) -> any StreamFlow
    {
        try await self.inner.openStreamFlow(to: host, port: port, options: options, receiver: receiver)
    }
}
