import AttendantPluginAPI
import CXoneCore
import Testing

/// ``ChatConnection`` alone: the one state of the chat's connection, what it reports, and losing it.
@Suite struct ChatConnectionValueTests {
    typealias Connection = ChatConnection

    static func connected(_ phase: Connection.Phase, recovery: Connection.Recovery? = nil) -> Connection {
        .connected(Connection.Connected(phase: phase, recovery: recovery))
    }

    @Test func eachStateReportsTheChatStateTheHostKnows() {
        let reported: [(Connection, ChatState)] = [
            (.unprepared, .initial),
            (.preparing(.configuration), .preparing),
            (.preparing(.visitor), .preparing),
            (.prepared, .prepared),
            (.asleep, .prepared),
            (.offline, .offline),
            (.checkingAvailability(offline: false), .prepared),
            (.checkingAvailability(offline: true), .offline),
            (.opening(nil), .connecting),
            (.waitingToReconnect(Connection.Recovery(attempt: 1, lastLoss: "1006")), .connecting),
            (Self.connected(.authorizing(withToken: false)), .connecting),
            (Self.connected(.loading(.threadList)), .connected),
            (Self.connected(.ready), .ready),
            (Self.connected(.conversationOver), .closed),
        ]
        for (connection, state) in reported {
            #expect(connection.reported == state, "\(connection)")
        }
    }

    @Test func aSocketThatNeverOpenedIsUnreachableNotRetried() {
        var connection = Connection.opening(nil)
        #expect(connection.hasSocket)
        let loss = connection.lose(reason: "connection refused", maximumAttempts: 20)
        #expect(loss == .unreachable)
        #expect(connection == .opening(nil), "the caller gives up and closes it")
    }

    @Test func aLostSocketWaitsToReconnectAndCountsItsTriesUntilTheLast() {
        var connection = Self.connected(.ready)
        let first = connection.lose(reason: "1006 abnormal closure", maximumAttempts: 2)
        #expect(first == .reconnect(Connection.Recovery(attempt: 1, lastLoss: "1006 abnormal closure")))
        #expect(connection == .waitingToReconnect(Connection.Recovery(attempt: 1, lastLoss: "1006 abnormal closure")))
        #expect(!connection.hasSocket)
        #expect(connection.connected == nil)

        // The next try opens, and fails before the chat is ready again.
        connection = .opening(connection.recovery)
        let second = connection.lose(reason: "no pong within 5 s", maximumAttempts: 2)
        #expect(second == .reconnect(Connection.Recovery(attempt: 2, lastLoss: "no pong within 5 s")))
        connection = Self.connected(.authorizing(withToken: true), recovery: connection.recovery)
        #expect(connection.recovery?.attempt == 2)
        let last = connection.lose(reason: "no answer", maximumAttempts: 2)
        #expect(last == .gaveUp)
    }

    @Test func whatTheOpenSocketHoldsEndsWithIt() {
        var connection = Self.connected(.ready)
        connection.modifyConnected {
            $0.sent.insert("m-1")
            $0.downloads.insert("https://s3.example/event")
            $0.heartbeat = .awaitingPong
        }
        #expect(connection.connected?.sent.contains("M-1") == true)
        #expect(connection.connected?.heartbeat == .awaitingPong)
        let loss = connection.lose(reason: "lost", maximumAttempts: 20)
        guard case .reconnect(let recovery) = loss else {
            Issue.record("a loss with tries left reconnects")
            return
        }
        let changed: Void? = connection.modifyConnected { $0.sent.insert("m-2") }
        #expect(changed == nil, "nothing to change without a socket")

        let reopened = Self.connected(.authorizing(withToken: true), recovery: recovery)
        #expect(reopened.connected?.sent.contains("m-1") == false, "the next socket sends the outbox again")
        #expect(reopened.connected?.downloads.isEmpty == true)
        #expect(reopened.connected?.heartbeat == .scheduled)
    }

    @Test func loadingWaitsForEachThreadItAsked() {
        var connected = Connection.Connected(phase: .loading(.metadata(["t1", "t2"])), recovery: nil)
        let first = connected.answered("t1")
        let again = connected.answered("t1")
        #expect(!first)
        #expect(!again)
        #expect(connected.phase == .loading(.metadata(["t2"])))
        let last = connected.answered("t2")
        #expect(last)

        var recovering = Connection.Connected(phase: .loading(.recoveries(["t1", "t2"])), recovery: nil)
        let all = recovering.answered(nil)
        #expect(all, "an answer naming no thread ends the wait")

        var ready = Connection.Connected(phase: .ready, recovery: nil)
        let notLoading = ready.answered("t1")
        #expect(!notLoading)
        #expect(ready.phase == .ready)
    }

    @Test func theBackoffGrowsByThirtyPercentPlusUpToASecondAndStopsAtTheMaximum() {
        #expect(Connection.backoff(attempt: 1, maximum: .seconds(30), unit: 0) == .milliseconds(1300))
        #expect(Connection.backoff(attempt: 2, maximum: .seconds(30), unit: 0.5) == .milliseconds(2190))
        #expect(Connection.backoff(attempt: 20, maximum: .seconds(30), unit: 0.9) == .seconds(30))
        #expect(Connection.backoff(attempt: 1000, maximum: .seconds(30), unit: 0) == .seconds(30))
    }
}
