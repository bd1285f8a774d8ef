import AttendantPluginKit
import GenesysCore
import Testing

/// The session machine's rules (GenesysSessionStateMachine's doc comment), on frames as the SDK's
/// fixtures have them (androidUnitTest/transport/util/Response.kt) and a clock the test moves.
@Suite struct GenesysSessionStateMachineTests {
    static let start = ContinuousClock.now

    static func at(_ seconds: Double) -> ContinuousClock.Instant { Self.start.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    static func frame(_ text: String) throws -> GenesysServerFrame { try GenesysServerFrame(decoding: Array(text.utf8)) }

    static let configured = #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":true,"newSession":true}}"#
    static let readOnlyResponse =
        #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":false,"newSession":false,"readOnly":true}}"#
    static let disconnect =
        #"{"type": "message","class": "StructuredMessage","code": 200,"body": {"direction": "Outbound","id": "0000000-0000-0000-0000-0000000000","channel": {"time": "2022-03-09T13:35:31.104Z","messageId": "0000000-0000-0000-0000-0000000000"},"type": "Event","metadata": {"readOnly":"true"},"events": [{"eventType":"Presence","presence":{"type":"Disconnect"}}]}}"#

    static func machine(_ edit: (inout GenesysSessionConfiguration) -> Void = { _ in }) -> GenesysSessionStateMachine {
        var configuration = GenesysSessionConfiguration(token: "00000000-0000-0000-0000-000000000000", deploymentId: "deploymentId")
        edit(&configuration)
        return GenesysSessionStateMachine(configuration: configuration, seed: 7)
    }

    static func sent(_ actions: [GenesysSessionStateMachine.Action]) -> [GenesysRequest] {
        actions.compactMap { if case .send(let request) = $0 { request } else { nil } }
    }

    /// Started, socket open, configured.
    static func configuredMachine(_ edit: (inout GenesysSessionConfiguration) -> Void = { _ in }) throws -> GenesysSessionStateMachine {
        var machine = Self.machine(edit)
        _ = machine.start()
        _ = machine.socketOpened(now: Self.at(0))
        _ = machine.received(try Self.frame(Self.configured), now: Self.at(0))
        return machine
    }

    @Test func configuringThenConfiguredThenSending() throws {
        var machine = Self.machine { $0.autoStart = true }
        #expect(machine.start() == [.openSocket])
        #expect(machine.send(.text("early"), now: Self.at(0)) == [.refused("the session is not configured yet")])
        let opened = machine.socketOpened(now: Self.at(0))
        let configure = try #require(Self.sent(opened).first)
        #expect(configure.token == "00000000-0000-0000-0000-000000000000")
        guard case .configureSession(let deployment, let startNew, let journey) = configure.action else {
            Issue.record("not configureSession: \(configure.action)")
            return
        }
        #expect(deployment == "deploymentId" && !startNew && journey == .sdkDefault(token: configure.token))
        let tracingID = try #require(configure.tracingId)
        #expect(tracingID.count == 36 && tracingID.split(separator: "-").count == 5)

        // A new session with autostart on: configured, then presence Join (SDK sendAutoStart).
        let answer = machine.received(try Self.frame(Self.configured), now: Self.at(1))
        #expect(answer.first == .configured(GenesysSessionResponse(connected: true, newSession: true)))
        #expect(Self.sent(answer).map(\.action) == [.onMessage(.autostart())])

        let sending = Self.sent(machine.send(.text("hello"), now: Self.at(2)))
        #expect(sending.map(\.action) == [.onMessage(.text("hello"))])
        #expect(sending.first?.tracingId != configure.tracingId)
    }

    @Test func aDisconnectWithReadOnlyMakesTheConversationReadOnlyUntilANewChat() throws {
        var machine = try Self.configuredMachine()
        #expect(machine.received(try Self.frame(Self.disconnect), now: Self.at(1)) == [.readOnly])
        #expect(
            machine.send(.text("still there?"), now: Self.at(2)) == [.refused("the conversation was disconnected and is read-only; start a new chat")]
        )
        #expect(machine.typing(now: Self.at(2)).first.map { if case .refused = $0 { true } else { false } } == true)

        // A new chat: closeSession everywhere, then configureSession with startNew once the server answers.
        #expect(Self.sent(machine.startNewChat()).map(\.action) == [.closeSession(closeAllConnections: true)])
        #expect(machine.startNewChat().isEmpty)
        let reconfigure = Self.sent(machine.received(try Self.frame(Self.readOnlyResponse), now: Self.at(3)))
        guard case .configureSession(_, let startNew, _)? = reconfigure.first?.action else {
            Issue.record("no configureSession: \(reconfigure)")
            return
        }
        #expect(startNew)
        #expect(
            machine.received(try Self.frame(Self.configured), now: Self.at(4)).first
                == .configured(GenesysSessionResponse(connected: true, newSession: true))
        )
        #expect(Self.sent(machine.send(.text("new chat"), now: Self.at(5))).count == 1)
    }

    @Test func aDisconnectWithoutReadOnlyKeepsTheConversationOpen() throws {
        // Deployments with conversationDisconnect type Send: the metadata says nothing and sending goes on.
        var machine = try Self.configuredMachine()
        let plain = Self.disconnect.replacing(#"{"readOnly":"true"}"#, with: "{}")
        #expect(machine.received(try Self.frame(plain), now: Self.at(1)).isEmpty)
        #expect(Self.sent(machine.send(.text("hi"), now: Self.at(2))).count == 1)
        #expect(machine.startNewChat() == [.refused("a new chat starts only after the conversation was disconnected")])
    }

    @Test func aReadOnlySessionResponse() throws {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.socketOpened(now: Self.at(0))
        #expect(machine.received(try Self.frame(Self.readOnlyResponse), now: Self.at(0)) == [.readOnly])
    }

    @Test func echoAtMostOncePer30Seconds() throws {
        var machine = try Self.configuredMachine()
        #expect(Self.sent(machine.keepAlive(now: Self.at(10))) == [.echo(token: "00000000-0000-0000-0000-000000000000")])
        // Sooner: deferred to the cool-down's end, once.
        #expect(machine.keepAlive(now: Self.at(25)) == [.setTimer(.echo, after: .seconds(15))])
        #expect(machine.keepAlive(now: Self.at(30)).isEmpty)
        #expect(Self.sent(machine.timerFired(.echo, now: Self.at(40.001))).map(\.action) == [.echo])
        // Exactly 30 s after is still within it (the SDK sends when more than the cool-down passed).
        #expect(machine.keepAlive(now: Self.at(70.001)) == [.setTimer(.echo, after: .zero)])
        #expect(Self.sent(machine.timerFired(.echo, now: Self.at(70.002))).map(\.action) == [.echo])
        // Read-only sessions keep their socket alive too (SDK sendSafeHealthCheck).
        _ = machine.received(try Self.frame(Self.disconnect), now: Self.at(80))
        #expect(Self.sent(machine.keepAlive(now: Self.at(101))).map(\.action) == [.echo])
    }

    @Test func ourTypingAtMostOncePer5SecondsAndOnlyWhenTheDeploymentShowsIt() throws {
        var hidden = try Self.configuredMachine()
        #expect(hidden.typing(now: Self.at(1)).isEmpty)

        var machine = try Self.configuredMachine { $0.showUserTypingIndicator = true }
        #expect(Self.sent(machine.typing(now: Self.at(1))).map(\.action) == [.onMessage(.typing)])
        #expect(machine.typing(now: Self.at(3)).isEmpty)
        #expect(machine.typing(now: Self.at(6)).isEmpty)
        #expect(Self.sent(machine.typing(now: Self.at(6.001))).count == 1)
        // Our message echoed back (Response.onMessage(Inbound)) ends the cool-down.
        _ = machine.received(
            try Self.frame(
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"text":"Hello world!","direction":"Inbound","id":"test_id","channel":{"time":"2022-08-22T19:24:26.704Z","messageId":"message_id"},"type":"Text"},"tracingId":"some_custom_message_id"}"#
            ),
            now: Self.at(7)
        )
        #expect(Self.sent(machine.typing(now: Self.at(7))).count == 1)
    }

    @Test func aLostSocketIsRetriedWithBackoffThenGivesUp() throws {
        var machine = try Self.configuredMachine {
            $0.maximumReconnectAttempts = 3
            $0.reconnectBackoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(30), jitter: .none)
        }
        var waits: [Duration] = []
        var now = 1.0
        for _ in 0..<3 {
            let actions = machine.socketFailed(now: Self.at(now))
            for case .setTimer(.reconnect, let after) in actions { waits.append(after) }
            #expect(machine.timerFired(.reconnect, now: Self.at(now + 1)) == [.openSocket])
            now += 40
        }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4)])
        let last = machine.socketFailed(now: Self.at(now))
        #expect(last.contains(.failed(.reconnectionGaveUp(attempts: 3))))
        #expect(machine.state == .failed(.reconnectionGaveUp(attempts: 3)))
        // start() begins again.
        #expect(machine.start() == [.openSocket])
    }

    @Test func aSessionResponseEndsARunOfAttempts() throws {
        var machine = try Self.configuredMachine {
            $0.reconnectBackoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(30), jitter: .none)
        }
        _ = machine.socketFailed(now: Self.at(1))
        _ = machine.timerFired(.reconnect, now: Self.at(2))
        #expect(machine.socketFailed(now: Self.at(3)).contains(.setTimer(.reconnect, after: .seconds(2))))
        _ = machine.timerFired(.reconnect, now: Self.at(5))
        _ = machine.socketOpened(now: Self.at(5))
        _ = machine.received(try Self.frame(Self.configured), now: Self.at(5))
        #expect(machine.socketFailed(now: Self.at(9)).contains(.setTimer(.reconnect, after: .seconds(1))))
    }

    @Test func aNewChatAskedForSurvivesALostSocket() throws {
        var machine = try Self.configuredMachine()
        _ = machine.received(try Self.frame(Self.disconnect), now: Self.at(1))
        _ = machine.startNewChat()
        _ = machine.socketFailed(now: Self.at(2))
        _ = machine.timerFired(.reconnect, now: Self.at(3))
        guard case .configureSession(_, let startNew, _)? = Self.sent(machine.socketOpened(now: Self.at(3))).first?.action else {
            Issue.record("no configureSession")
            return
        }
        #expect(startNew)
    }

    @Test func theSessionEndsOnExpiryNotFoundAClosedConnectionOrARefusedConfiguration() throws {
        let endings: [(String, GenesysSessionFailure)] = [
            (#"{"type": "response","class": "SessionExpiredEvent","code": 200,"body": {}}"#, .sessionExpired),
            (#"{"type": "response","class": "string","code": 4006,"body": "session expired error message"}"#, .sessionExpired),
            (#"{"type": "response","class": "string","code": 4007,"body": "session not found error message"}"#, .sessionNotFound),
            (#"{"type":"message","class":"ConnectionClosedEvent","code":200,"body":{}}"#, .closedElsewhere(signedIn: false)),
            (#"{"type":"message","class":"ConnectionClosedEvent","code":200,"body":{"reason":"signedIn"}}"#, .closedElsewhere(signedIn: true)),
        ]
        for (text, failure) in endings {
            var machine = try Self.configuredMachine()
            let actions = machine.received(try Self.frame(text), now: Self.at(1))
            #expect(actions.first == .closeSocket)
            #expect(actions.contains(.failed(failure)))
            #expect(machine.state == .failed(failure))
            #expect(machine.socketFailed(now: Self.at(2)).isEmpty, "no reconnection after \(failure)")
        }
        // Response.webSocketRequestFailed while configuring.
        var configuring = Self.machine()
        _ = configuring.start()
        _ = configuring.socketOpened(now: Self.at(0))
        let refused = configuring.received(
            try Self.frame(#"{"type":"response","class":"string","code":400,"body":"Request failed."}"#),
            now: Self.at(0)
        )
        #expect(refused.contains(.failed(.configurationRefused(GenesysErrorCode(400)))))
        // The same error once configured (a refused message) leaves the session as it was.
        var configured = try Self.configuredMachine()
        #expect(
            configured.received(try Self.frame(#"{"type":"response","class":"string","code":400,"body":"Request failed."}"#), now: Self.at(1)).isEmpty
        )
        #expect(
            configured.received(try Self.frame(#"{"type": "response","class": "string","code": 4011,"body": "message too long"}"#), now: Self.at(1))
                .isEmpty
        )
        #expect(Self.sent(configured.send(.text("shorter"), now: Self.at(2))).count == 1)
    }

    @Test func stopClosesTheSocketAndCancelsTheTimers() throws {
        var machine = try Self.configuredMachine()
        #expect(machine.stop() == [.closeSocket, .cancelTimer(.reconnect), .cancelTimer(.echo)])
        #expect(machine.state == .idle)
        #expect(machine.stop().isEmpty)
    }
}
