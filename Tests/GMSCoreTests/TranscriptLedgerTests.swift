import GMSCore
import Testing

@Suite struct TranscriptLedgerTests {
    static func events(_ positions: [Int]) -> [GMSTranscriptEvent] {
        positions.map {
            GMSTranscriptEvent(position: $0, type: GMSEventType("Message"), party: GMSParty(nickname: "Ann", type: "Agent"), text: "m\($0)")
        }
    }

    @Test func handsOnEachEventOnceInOrderWhateverTheDeliveryOrder() {
        var ledger = TranscriptLedger(shown: 4)
        let first = ledger.accept(Self.events([7, 5, 4, 3]))
        #expect(first.released.map(\.position) == [5])
        #expect(first.duplicates == 2)
        #expect(ledger.gap == 6)
        let second = ledger.accept(Self.events([6, 7, 8, 5]))
        #expect(second.released.map(\.position) == [6, 7, 8])
        #expect(second.duplicates == 2)  // 7 was waiting, 5 was shown
        #expect(ledger.shown == 8 && ledger.gap == nil)
    }

    @Test func aReplayFromTheStartRepeatsNothing() {
        var ledger = TranscriptLedger()
        _ = ledger.accept(Self.events(Array(1...20)))
        let replay = ledger.accept(Self.events(Array(1...22)))
        #expect(replay.released.map(\.position) == [21, 22])
        #expect(replay.duplicates == 20)
    }

    @Test func givingUpAGapHandsOnWhatWaitsInOrder() {
        var ledger = TranscriptLedger(shown: 1)
        _ = ledger.accept(Self.events([9, 4, 5, 7]))
        #expect(ledger.gap == 2)
        #expect(ledger.skipGap().map(\.position) == [4, 5, 7, 9])
        #expect(ledger.shown == 9 && ledger.waitingCount == 0)
    }

    @Test func tooManyWaitingRowsGiveUpTheGap() {
        var ledger = TranscriptLedger(shown: 0, waitingLimit: 3)
        let outcome = ledger.accept(Self.events([3, 4, 5, 6]))
        #expect(outcome.released.map(\.position) == [3, 4, 5, 6])
        #expect(ledger.shown == 6)
    }
}
