import GMSCore
import Testing

/// ``BayeuxClientStateMachine/Session`` alone: its one connect, `connected` reported once per stretch of
/// working connects, and when the server has forgotten the client.
@Suite struct BayeuxSessionValueTests {
    typealias Session = BayeuxClientStateMachine.Session

    @Test func aSessionHoldsOneConnectAtATime() {
        var session = Session(clientID: "c1", handshakeAt: .seconds(5))
        #expect(session.connect == .idle && session.outstandingConnect == nil && !session.connected)
        let none = session.endConnect()
        #expect(none == nil, "no connect, nothing to end")

        session.sent(connect: "2")
        #expect(session.connect == .inFlight(id: "2") && session.outstandingConnect == "2")
        let ended = session.endConnect()
        let again = session.endConnect()
        #expect(ended == "2" && again == nil && session.connect == .idle)
        #expect(session.clientID == "c1" && session.handshakeAt == .seconds(5), "the session's identity stays")
    }

    @Test func connectedIsNewsOnlyAfterTheHandshakeOrAnInterruption() {
        var session = Session(clientID: "c1", handshakeAt: .zero)
        let first = session.connectSucceeded(now: .seconds(1))
        let second = session.connectSucceeded(now: .seconds(2))
        #expect(first && !second && session.connected)

        let wasConnected = session.interrupt()
        let stillFailing = session.interrupt()
        #expect(wasConnected && !stillFailing && !session.connected)
        let back = session.connectSucceeded(now: .seconds(3))
        #expect(back, "connected again after connects failed")
    }

    @Test func theServerForgetsTheClientPastMaxIntervalWithoutAGoodConnect() {
        var session = Session(clientID: "c1", handshakeAt: .seconds(10))
        #expect(session.lastContact == .seconds(10), "the handshake is the first contact")
        #expect(!session.serverForgotClient(now: .seconds(20), maxInterval: .seconds(10)), "at maxInterval it still knows it")
        #expect(session.serverForgotClient(now: .milliseconds(20_001), maxInterval: .seconds(10)))
        #expect(!session.serverForgotClient(now: .seconds(1000), maxInterval: nil), "no maxInterval: never forgotten")

        _ = session.connectSucceeded(now: .seconds(18))
        #expect(session.lastContact == .seconds(18))
        #expect(!session.serverForgotClient(now: .seconds(25), maxInterval: .seconds(10)), "a good connect is contact")
        _ = session.interrupt()
        #expect(session.lastContact == .seconds(18), "a failure is no contact")
        #expect(session.serverForgotClient(now: .seconds(29), maxInterval: .seconds(10)))
    }
}
