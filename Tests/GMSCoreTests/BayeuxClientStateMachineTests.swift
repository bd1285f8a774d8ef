import AttendantPluginKit
import GMSCore
import Testing

/// Random numbers that always give the top of the range, so backoff waits are their ceilings.
struct TopRandom: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 { .max }
}

typealias Machine = BayeuxClientStateMachine
typealias Action = BayeuxClientStateMachine.Action

extension [Action] {
    var sent: [(messages: [BayeuxMessage], lane: Machine.Lane)] {
        self.compactMap { if case .send(let messages, let lane) = $0 { (messages, lane) } else { nil } }
    }

    func sent(on channel: String) -> [BayeuxMessage] {
        self.sent.flatMap(\.messages).filter { $0.channel == channel }
    }

    var armed: [(Machine.TimerKind, Duration)] {
        self.compactMap { if case .arm(let id, let delay) = $0 { (id.kind, delay) } else { nil } }
    }

    func timer(_ kind: Machine.TimerKind) -> TimerID<Machine.TimerKind>? {
        self.compactMap { if case .arm(let id, _) = $0, id.kind == kind { id } else { nil } }.last
    }
}

/// A machine and its clock, with replies built the way servers send them.
struct Rig {
    var machine: Machine
    var now: Duration = .zero

    init(_ configure: (inout Machine.Configuration) -> Void = { _ in }) {
        var configuration = Machine.Configuration()
        configure(&configuration)
        self.machine = Machine(configuration: configuration, random: TopRandom())
    }

    static func reply(to request: BayeuxMessage, successful: Bool = true, _ change: (inout BayeuxMessage) -> Void = { _ in }) -> BayeuxMessage {
        var reply = BayeuxMessage(channel: request.channel, id: request.id, clientID: request.clientID)
        reply.successful = successful
        change(&reply)
        return reply
    }

    /// Starts and completes the handshake; returns the actions of the handshake reply.
    mutating func handshake(
        clientID: String = "c1",
        advice: BayeuxAdvice? = BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(30))
    ) -> [Action] {
        let handshake = self.machine.start(now: self.now).sent(on: "/meta/handshake")[0]
        return self.machine.received(
            [
                Self.reply(to: handshake) {
                    $0.clientID = clientID
                    $0.advice = advice
                    $0.supportedConnectionTypes = ["long-polling", "websocket"]
                }
            ],
            now: self.now
        )
    }
}

@Suite struct BayeuxClientStateMachineTests {
    @Test func handshakesAloneThenHoldsOneConnectOnItsOwnLane() throws {
        var rig = Rig()
        let start = rig.machine.start(now: .zero)
        #expect(start.sent.count == 1)
        let handshake = try #require(start.sent.first)
        #expect(handshake.lane == .control && handshake.messages.count == 1)
        #expect(handshake.messages[0].version == "1.0" && handshake.messages[0].supportedConnectionTypes == ["long-polling"])
        #expect(rig.machine.start(now: .zero).isEmpty, "a second start while handshaking sends nothing")

        _ = rig.machine.subscribe("/_genesys")
        let (publishID, queued) = rig.machine.publish("/service/chatV2/support", data: .object(["operation": .string("requestChat")]))
        #expect(queued.isEmpty, "a publish before the session waits")

        let replied = rig.machine.received(
            [
                Rig.reply(to: handshake.messages[0]) {
                    $0.clientID = "c1"
                    $0.advice = BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(30))
                }
            ],
            now: .zero
        )
        #expect(replied.contains(.handshook(clientID: "c1")))
        let connects = replied.sent.filter { $0.lane == .connect }
        #expect(connects.count == 1 && connects[0].messages.count == 1, "the connect goes alone")
        let connect = connects[0].messages[0]
        #expect(connect.channel == "/meta/connect" && connect.clientID == "c1" && connect.connectionType == "long-polling")
        #expect(connect.advice == BayeuxAdvice(timeout: .zero), "the first connect asks for an immediate answer")
        let control = replied.sent.filter { $0.lane == .control }.flatMap(\.messages)
        #expect(control.map(\.channel) == ["/meta/subscribe", "/service/chatV2/support"])
        #expect(control.allSatisfy { $0.clientID == "c1" })
        #expect(control[1].id == publishID)

        // The connect comes back: connected, and the next one goes out at once (interval 0), held 30 s.
        let first = rig.machine.received([Rig.reply(to: connect)], now: .milliseconds(5))
        #expect(first.contains(.connected))
        let next = try #require(first.sent(on: "/meta/connect").first)
        #expect(next.advice == nil && next.id != connect.id)
        #expect(first.armed.contains { $0.0 == .connectDeadline && $0.1 == .seconds(40) })
        #expect(rig.machine.connectRequestTimeout == .seconds(40))
        let again = rig.machine.received([Rig.reply(to: next)], now: .seconds(30))
        #expect(!again.contains(.connected), "connected is reported once")
        #expect(again.sent(on: "/meta/connect").count == 1)
    }

    @Test func repliesAreMatchedByIDAndSuccessfulNotByIDAlone() throws {
        var rig = Rig()
        _ = rig.handshake()
        let (id, actions) = rig.machine.publish("/chat/demo", data: .object(["text": .string("hi")]))
        let publish = try #require(actions.sent(on: "/chat/demo").first)
        // Faye copies the publisher's id into the delivered event, which comes before the ack.
        var event = BayeuxMessage(channel: "/chat/demo", id: id, data: .object(["text": .string("hi")]))
        event.clientID = nil
        let delivered = rig.machine.received([event], now: .zero)
        #expect(delivered == [Action.deliver(event)])
        let ack = Rig.reply(to: publish)
        let acked = rig.machine.received([ack], now: .zero)
        #expect(acked.contains(Action.published(id: id, .success(ack))))
        // A second ack for the same id matches nothing any more.
        #expect(!rig.machine.received([ack], now: .zero).contains { if case .published = $0 { true } else { false } })
    }

    @Test func theAdviceNotTheErrorTextDecidesOnANewHandshake() throws {
        for error in ["402::Unknown client", "402::session_unknown", "401:c1:Unknown client", "403::Unknown client"] {
            var rig = Rig()
            let connect = try #require(rig.handshake().sent(on: "/meta/connect").first)
            let refused = rig.machine.received(
                [
                    Rig.reply(to: connect, successful: false) {
                        $0.error = error
                        $0.advice = BayeuxAdvice(reconnect: .handshake, interval: .zero)
                    }
                ],
                now: .seconds(1)
            )
            let handshakes = refused.sent(on: "/meta/handshake")
            #expect(handshakes.count == 1, "\(error): no new handshake")
            #expect(rig.machine.status.clientID == nil)
        }
        // The same text with retry advice: connect again, keep the session.
        var rig = Rig()
        let connect = try #require(rig.handshake().sent(on: "/meta/connect").first)
        let retried = rig.machine.received(
            [
                Rig.reply(to: connect, successful: false) {
                    $0.error = "402::Unknown client"
                    $0.advice = BayeuxAdvice(reconnect: .retry)
                }
            ],
            now: .seconds(1)
        )
        #expect(retried.sent(on: "/meta/handshake").isEmpty)
        #expect(retried.armed.contains { $0.0 == .connect && $0.1 == .zero })
        #expect(rig.machine.status.clientID == "c1")
    }

    @Test func onlyOneHandshakeIsEverInFlight() throws {
        var rig = Rig()
        let connect = try #require(rig.handshake().sent(on: "/meta/connect").first)
        let (_, publish) = rig.machine.publish("/service/x", data: .null)
        let publishMessage = try #require(publish.sent(on: "/service/x").first)
        var actions = rig.machine.received(
            [Rig.reply(to: connect, successful: false) { $0.advice = BayeuxAdvice(reconnect: .handshake) }],
            now: .zero
        )
        actions += rig.machine.received(
            [Rig.reply(to: publishMessage, successful: false) { $0.advice = BayeuxAdvice(reconnect: .handshake) }],
            now: .zero
        )
        actions += rig.machine.start(now: .zero)
        #expect(actions.sent(on: "/meta/handshake").count == 1)
    }

    @Test func aFailedLongPollIsRetriedAtOnceThenWithGrowingWaits() throws {
        var rig = Rig()
        let connect = try #require(rig.handshake().sent(on: "/meta/connect").first)
        _ = rig.machine.received([Rig.reply(to: connect)], now: .zero)

        var failed = rig.machine.connectFailed(.transport("connection reset"), now: .seconds(1))
        #expect(failed.contains(.connectionInterrupted(.transport("connection reset"))))
        #expect(failed.armed.map(\.1) == [.zero], "the first retry is immediate")
        var timer = try #require(failed.timer(.connect))
        var retry = rig.machine.timerFired(timer, now: .seconds(1))
        #expect(retry.sent(on: "/meta/connect").count == 1)

        failed = rig.machine.connectFailed(.transport("refused"), now: .seconds(2))
        #expect(!failed.contains { if case .connectionInterrupted = $0 { true } else { false } }, "reported once per interruption")
        #expect(failed.armed.map(\.1) == [.seconds(1)])
        timer = try #require(failed.timer(.connect))
        retry = rig.machine.timerFired(timer, now: .seconds(3))
        failed = rig.machine.connectFailed(.transport("refused"), now: .seconds(4))
        #expect(failed.armed.map(\.1) == [.seconds(2)])

        // Ten seconds (the default maxInterval) after the last good connect the server has forgotten the
        // client: handshake instead of connecting.
        timer = try #require(failed.timer(.connect))
        let late = rig.machine.timerFired(timer, now: .seconds(11))
        #expect(late.sent(on: "/meta/handshake").count == 1)
        #expect(late.sent(on: "/meta/connect").isEmpty)
        _ = retry
    }

    /// A long-poll answered without the connect's reply ends that connect; a stale answer for an older
    /// connect leaves the current one alone.
    /// An unsubscription goes out on the control lane now, and the channel is not subscribed again after
    /// the next handshake; its refusal is reported like a subscription's.
    @Test func unsubscribingStopsTheSubscriptionNowAndAfterTheNextHandshake() throws {
        var rig = Rig()
        _ = rig.machine.subscribe("/chat/a")
        _ = rig.machine.subscribe("/chat/b")
        #expect(rig.handshake().sent(on: "/meta/subscribe").count == 2)
        let actions = rig.machine.unsubscribe("/chat/a")
        let unsubscribe = try #require(actions.sent(on: "/meta/unsubscribe").first)
        #expect(unsubscribe.subscription == ["/chat/a"] && unsubscribe.clientID == "c1")
        #expect(actions.sent.first?.lane == .control)
        #expect(rig.machine.unsubscribe("/chat/a").isEmpty, "once")
        let refused = rig.machine.received([Rig.reply(to: unsubscribe, successful: false) { $0.error = "403::denied" }], now: .zero)
        #expect(refused.contains { if case .subscriptionFailed("/chat/a", _) = $0 { true } else { false } })
        // A new session subscribes /chat/b only.
        var again = Rig()
        _ = again.machine.subscribe("/chat/a")
        _ = again.machine.subscribe("/chat/b")
        _ = again.machine.unsubscribe("/chat/a")
        #expect(again.handshake().sent(on: "/meta/subscribe").map(\.subscription) == [["/chat/b"]])
    }

    @Test func aConnectEndedWithoutItsReplyIsRetriedAndAStaleOneIgnored() throws {
        var rig = Rig()
        let first = try #require(rig.handshake().sent(on: "/meta/connect").first)
        let ended = rig.machine.connectFailed(id: try #require(first.id), .transport("no reply"), now: .seconds(1))
        let timer = try #require(ended.timer(.connect))
        let second = try #require(rig.machine.timerFired(timer, now: .seconds(1)).sent(on: "/meta/connect").first)
        #expect(second.id != first.id)
        #expect(rig.machine.connectFailed(id: try #require(first.id), .transport("late"), now: .seconds(2)).isEmpty)
        let reply = rig.machine.received([Rig.reply(to: second)], now: .seconds(2))
        #expect(reply.contains(.connected))
    }

    @Test func aConnectPastItsDeadlineIsAbandonedAndRetried() throws {
        var rig = Rig()
        let handshook = rig.handshake()
        let deadline = try #require(handshook.timer(.connectDeadline))
        let fired = rig.machine.timerFired(deadline, now: .seconds(10))
        #expect(fired.first == .abandonConnect)
        #expect(fired.armed.contains { $0.0 == .connect })
        #expect(rig.machine.timerFired(deadline, now: .seconds(11)) == [.note("stale timer \(deadline)")])
    }

    @Test func aPositiveIntervalWaitsAndReconnectNoneStops() throws {
        var rig = Rig()
        let connect = try #require(rig.handshake().sent(on: "/meta/connect").first)
        let waited = rig.machine.received([Rig.reply(to: connect) { $0.advice = BayeuxAdvice(interval: .milliseconds(500)) }], now: .zero)
        #expect(waited.sent(on: "/meta/connect").isEmpty)
        #expect(waited.armed.contains { $0.0 == .connect && $0.1 == .milliseconds(500) })
        let wait = try #require(waited.timer(.connect))
        let next = try #require(rig.machine.timerFired(wait, now: .seconds(1)).sent(on: "/meta/connect").first)
        let (id, _) = rig.machine.publish("/chat/x", data: .null)
        let stopped = rig.machine.received(
            [Rig.reply(to: next, successful: false) { $0.advice = BayeuxAdvice(reconnect: BayeuxAdvice.Reconnect.none) }],
            now: .seconds(2)
        )
        #expect(stopped.contains(.published(id: id, .failure(.refused("connect", error: nil)))))
        #expect(stopped.last == .stopped(.refused("connect", error: nil)))
    }

    @Test func disconnectCarriesItsExtAndANewStartIsANewSession() throws {
        var rig = Rig()
        _ = rig.handshake(clientID: "first")
        let disconnecting = rig.machine.disconnect(ext: ["transcriptPosition": .string("4")], now: .seconds(5))
        let disconnect = try #require(disconnecting.sent(on: "/meta/disconnect").first)
        #expect(disconnect.clientID == "first")
        #expect(disconnect.ext == ["transcriptPosition": .string("4")])
        #expect(disconnecting.sent.allSatisfy { $0.lane == .control })
        #expect(rig.machine.received([Rig.reply(to: disconnect)], now: .seconds(5)).last == .stopped(nil))

        let restarted = rig.handshake(clientID: "second")
        #expect(restarted.contains(.handshook(clientID: "second")))
        #expect(rig.machine.status.clientID == "second")
    }

    /// A publish on the wire when the session ends gets its answer then: the server no longer owes one,
    /// and its caller (a stopping channel's operation) must not wait for ever.
    @Test func aPublishStillOnTheWireFailsWhenTheDisconnectEndsTheSession() throws {
        for answered in [true, false] {
            var rig = Rig()
            _ = rig.handshake(clientID: "first")
            let (id, published) = rig.machine.publish("/service/chatV2/x", data: .null)
            #expect(published.sent(on: "/service/chatV2/x").count == 1)
            let disconnecting = rig.machine.disconnect(now: .seconds(1))
            #expect(!disconnecting.contains(.published(id: id, .failure(.disconnected))), "sent: it waits for its reply")
            let disconnect = try #require(disconnecting.sent(on: "/meta/disconnect").first)
            let disconnectID = try #require(disconnect.id)
            let deadline = try #require(disconnecting.timer(.reply(disconnectID)))
            let ended =
                answered
                ? rig.machine.received([Rig.reply(to: disconnect)], now: .seconds(1))
                : rig.machine.timerFired(deadline, now: .seconds(4))
            #expect(ended.contains(.published(id: id, .failure(.endedBeforeReply))), "disconnect answered: \(answered)")
            #expect(ended.last == .stopped(nil))
            #expect(ended.armed.isEmpty)
        }
    }

    @Test func anUnansweredDisconnectStopsAfterItsOwnShortDelay() throws {
        var rig = Rig { $0.networkDelay = .seconds(10) }
        _ = rig.handshake(clientID: "first")
        let disconnecting = rig.machine.disconnect(now: .seconds(5))
        #expect(disconnecting.armed.map(\.1) == [.seconds(3)], "a disconnect waits 3 s, not the 10 s network delay")
        let id = try #require(disconnecting.sent(on: "/meta/disconnect").first?.id)
        let deadline = try #require(disconnecting.timer(.reply(id)))
        #expect(rig.machine.timerFired(deadline, now: .seconds(8)).last == .stopped(nil))

        var short = Rig { $0.networkDelay = .seconds(1) }
        _ = short.handshake(clientID: "second")
        #expect(short.machine.disconnect(now: .seconds(5)).armed.map(\.1) == [.seconds(1)], "never longer than the network delay")
    }

    @Test func aServerWithoutWebSocketGetsLongPolling() throws {
        var rig = Rig { $0.connectionType = .webSocket }
        let handshake = try #require(rig.machine.start(now: .zero).sent(on: "/meta/handshake").first)
        #expect(handshake.supportedConnectionTypes == ["websocket", "long-polling"])
        let replied = rig.machine.received(
            [
                Rig.reply(to: handshake) {
                    $0.clientID = "c"
                    $0.supportedConnectionTypes = ["long-polling", "callback-polling"]
                }
            ],
            now: .zero
        )
        #expect(replied.contains(.useConnectionType(.longPolling)))
        #expect(replied.sent(on: "/meta/connect").first?.connectionType == "long-polling")
    }

    @Test func whenTheTransportIsLostEverythingOnItFailsAndTheConnectIsRetried() throws {
        var rig = Rig { $0.connectionType = .webSocket }
        _ = rig.handshake()
        let (id, _) = rig.machine.publish("/service/chatV2/s", data: .null)
        let lost = rig.machine.transportLost(.transport("WebSocket closed"), now: .seconds(1))
        #expect(lost.contains(.published(id: id, .failure(.transport("WebSocket closed")))))
        #expect(lost.armed.contains { $0.0 == .connect && $0.1 == .zero })
    }

    @Test func aRefusedHandshakeIsRetriedWithBackoffUnlessTheServerSaysNone() throws {
        var rig = Rig()
        let handshake = try #require(rig.machine.start(now: .zero).sent(on: "/meta/handshake").first)
        let refused = rig.machine.received([Rig.reply(to: handshake, successful: false) { $0.error = "403::busy" }], now: .zero)
        #expect(refused.contains(.connectionInterrupted(.refused("handshake", error: "403::busy"))))
        let firstWait = try #require(refused.timer(.handshake))
        let again = try #require(rig.machine.timerFired(firstWait, now: .zero).sent(on: "/meta/handshake").first)
        let second = rig.machine.received([Rig.reply(to: again, successful: false)], now: .zero)
        #expect(second.armed.contains { $0.0 == .handshake && $0.1 == .seconds(1) })
        let secondWait = try #require(second.timer(.handshake))
        let third = try #require(rig.machine.timerFired(secondWait, now: .seconds(1)).sent(on: "/meta/handshake").first)
        let none = rig.machine.received(
            [Rig.reply(to: third, successful: false) { $0.advice = BayeuxAdvice(reconnect: BayeuxAdvice.Reconnect.none) }],
            now: .seconds(1)
        )
        #expect(none.last == .stopped(.refused("handshake", error: nil)))
    }
}
