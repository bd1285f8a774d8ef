import GMSCore
import Testing

/// ``GMSChatConnection`` alone: callers of `listen()` wait only while no connect has succeeded, and hear
/// the first that does, or that the session ended.
@Suite struct GMSChatConnectionValueTests {
    @Test func callersWaitUntilAConnectSucceedsAndNotOnceOneHas() {
        var connection = GMSChatConnection.connecting(waiting: [:])
        let waits = [connection.wait(3, timeout: .seconds(30)), connection.wait(1, timeout: .seconds(12))]
        #expect(waits == [true, true])
        #expect(!connection.isConnected)
        let connected = connection.connect()
        #expect(connected == [1, 3], "in request order")
        #expect(connection == .connected)
        let waitsAgain = connection.wait(4, timeout: .seconds(30))
        #expect(!waitsAgain, "connected already: the caller hears at once")
        let again = connection.connect()
        #expect(again.isEmpty)
    }

    @Test func anInterruptionKeepsTheCallersWaitingAndAnEndedSessionLetsThemGo() {
        var connection = GMSChatConnection.connected
        connection.interrupt()
        #expect(connection == .connecting(waiting: [:]))
        _ = connection.wait(5, timeout: .seconds(30))
        connection.interrupt()
        #expect(connection == .connecting(waiting: [5: .seconds(30)]), "an interruption before the first connect changes nothing")
        _ = connection.wait(2, timeout: .seconds(30))
        let stopped = connection.stop()
        #expect(stopped == [2, 5])
        #expect(connection == .connecting(waiting: [:]))
    }

    @Test func aCallerWhoseTimeIsUpOrWhoLeftWaitsNoLonger() {
        var connection = GMSChatConnection.connecting(waiting: [:])
        _ = connection.wait(1, timeout: .seconds(12))
        _ = connection.wait(2, timeout: .seconds(30))
        let timeouts = [connection.timeOut(1), connection.timeOut(1)]
        #expect(timeouts == [.seconds(12), nil], "once")
        connection.forget(2)
        let connected = connection.connect()
        #expect(connected.isEmpty)
        let late = connection.timeOut(2)
        #expect(late == nil, "no deadline while connected")
    }
}
