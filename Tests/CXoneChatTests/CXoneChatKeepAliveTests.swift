import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Testing

/// The keep-alive, which the host calls each cycle and at once after a network change or a resume
/// (DESIGN.md: "retry immediately on resume or network change"). The host's clock never moves in these
/// tests, so the machine's own heartbeat (every 10 s) and its reconnect backoff (1.3 s at least) never
/// come: what happens is the keep-alive's doing.
@Suite(.timeLimit(.minutes(2))) struct CXoneChatKeepAliveTests {
    typealias Rig = CXoneChatGatewayTests.Rig

    /// A ready chat's keep-alive sends a heartbeat now and returns on its pong; the socket stays.
    @Test func aKeepAliveChecksTheSocketWithAHeartbeat() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()
        let keepAlive = Task { [channel = rig.channel] in try await channel.keepAlive() }

        try await socket.nextHeartbeat()
        socket.peer.send(text: #""pong""#)
        try await keepAlive.value
        #expect(rig.host.inMemoryNetwork.webSockets.count == 1)
        #expect(rig.entered(.ready) == 1)
        await rig.stop()
    }

    /// A slow link: the pong is queued behind frames still arriving. Each frame is a sign of life, so
    /// 12 s of frames without the pong (the pong timeout is 5 s) keep the socket; the pong then ends the
    /// keep-alive.
    @Test func framesArrivingBeforeThePongKeepTheSocket() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()
        let keepAlive = Task { [channel = rig.channel] in try await channel.keepAlive() }
        try await socket.nextHeartbeat()

        var said: [CXoneGateway.Message] = []
        for second in [4, 8, 12] {
            said.append(socket.agentSays("Still loading, \(second) s"))
            try await rig.heard(said.last!)
            rig.host.manualClock.advance(by: .seconds(4))
        }
        #expect(rig.host.inMemoryNetwork.webSockets.count == 1, "the socket was taken for dead")
        socket.peer.send(text: #""pong""#)
        try await keepAlive.value
        #expect(rig.host.inMemoryNetwork.webSockets.count == 1)
        #expect(!rig.host.logRecords.text.contains("no pong"), "\(rig.host.logRecords.text)")
        await rig.stop()
    }

    /// The network changed under a socket that looks open: its heartbeat finds it gone, and the chat
    /// reconnects at once (not after the CXone SDK's backoff) and recovers its thread; the keep-alive
    /// returns when it is ready again.
    @Test func aKeepAliveThatFindsTheSocketGoneReconnectsAtOnce() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()
        let hello = socket.agentSays("Hello, this is Ada.")
        try await rig.heard(hello)
        let keepAlive = Task { [channel = rig.channel] in try await channel.keepAlive() }

        try await socket.nextHeartbeat()
        socket.peer.close(code: 1001, reason: "going away")
        let meanwhile = rig.gateway.agentWrites("Are you still there?")
        try await until("a second socket opened, the clock not moved") { rig.host.inMemoryNetwork.webSockets.count == 2 }
        let again = try await rig.gateway.accept()
        try await again.authorize()
        let recovery = try await again.recover()
        #expect(recovery.threadID?.lowercased() == rig.gateway.threadID)
        try await keepAlive.value
        try await until("the host heard the chat ready again") { rig.entered(.ready) == 2 }
        try await rig.heard(meanwhile)
        #expect(rig.messages.map(\.text) == [hello.text, meanwhile.text], "each once")
        await rig.stop()
    }

    /// The socket was lost before the keep-alive came, and the chat waits out its backoff: the keep-alive
    /// reconnects at once instead of failing with "connecting, not ready".
    @Test func aKeepAliveWhileTheChatWaitsToReconnectReconnectsAtOnce() async throws {
        let rig = try Rig()
        let socket = try await rig.listening()
        socket.peer.close(code: 1011, reason: "restarting")
        try await until("the chat is connecting again") { rig.entered(.connecting) == 2 }
        let keepAlive = Task { [channel = rig.channel] in try await channel.keepAlive() }

        try await until("a second socket opened, the clock not moved") { rig.host.inMemoryNetwork.webSockets.count == 2 }
        let again = try await rig.gateway.accept()
        try await again.authorize()
        try await again.recover()
        try await keepAlive.value
        try await until("the host heard the chat ready again") { rig.entered(.ready) == 2 }
        #expect(rig.host.logRecords.text.contains("reconnecting (attempt 1)"), "\(rig.host.logRecords.text)")
        await rig.stop()
    }
}

extension CXoneGateway.Connection {
    /// Waits (up to 10 s of the wall clock for each frame) for the channel's next heartbeat on this socket,
    /// and leaves it unanswered. Frames before it are skipped.
    func nextHeartbeat() async throws {
        while true {
            let message = try await self.peer.nextMessage(timeout: .seconds(10))
            guard case .text(let text) = message else { continue }
            let json = try CXoneGateway.object(Array(text.utf8))
            if json["action"] as? String == "heartbeat", json["payload"] == nil { return }
        }
    }
}
