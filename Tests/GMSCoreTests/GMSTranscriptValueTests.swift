import GMSCore
import Testing

/// ``GMSTranscript`` alone: a gap's wait, replay and skip, and the catch-up an interrupted session owes.
@Suite struct GMSTranscriptValueTests {
    typealias CatchUp = GMSTranscript.CatchUp

    static func rows(_ positions: [Int]) -> [GMSTranscriptEvent] {
        positions.map {
            GMSTranscriptEvent(position: $0, type: GMSEventType("Message"), party: GMSParty(nickname: "Ann", type: "Agent"), text: "m\($0)")
        }
    }

    @Test func aGapWaitsThenIsReplayedThenSkipped() {
        var transcript = GMSTranscript(shown: 2)
        let first = transcript.accept(Self.rows([3, 5, 2]))
        #expect(first.released.map(\.position) == [3] && first.duplicates == 1 && first.gap == .waiting)
        #expect(transcript.shown == 3)

        #expect(transcript.gapWaited() == .askForReplay)
        #expect(transcript.replayAskedFor == 4)
        let replayed = transcript.accept(Self.rows([5]))
        #expect(replayed.released.isEmpty && replayed.duplicates == 1)
        #expect(replayed.gap == .replaying, "a replay without the gap runs its time")

        #expect(transcript.gapWaited() == .skipped(position: 4, Self.rows([5])))
        #expect(transcript.shown == 5 && transcript.replayAskedFor == nil)
        #expect(transcript.gapWaited() == nil, "no gap, nothing to wait for")
    }

    @Test func aRowThatFillsTheGapEndsItsReplay() {
        var transcript = GMSTranscript()
        _ = transcript.accept(Self.rows([2]))
        _ = transcript.gapWaited()
        let filled = transcript.accept(Self.rows([1]))
        #expect(filled.released.map(\.position) == [1, 2] && filled.gap == .closed)
        #expect(transcript.replayAskedFor == nil)
        _ = transcript.accept(Self.rows([4]))
        #expect(transcript.gapWaited() == .askForReplay, "a new gap waits afresh")
    }

    @Test func aNewChatStartsFromTheBeginningAndKeepsTheCatchUpOwed() {
        var transcript = GMSTranscript(shown: 7)
        _ = transcript.accept(Self.rows([9]))
        _ = transcript.gapWaited()
        transcript.catchUp.interrupted()
        transcript.restart()
        #expect(transcript.shown == 0 && transcript.ledger.gap == nil && transcript.replayAskedFor == nil)
        #expect(transcript.catchUp == .owed, "the session's interruption is not the chat's")
    }

    @Test func anInterruptionOwesACatchUpWhateverTheRequestUnderWayBrings() {
        var catchUp = CatchUp.none
        catchUp.interrupted()
        #expect(catchUp == .owed && !catchUp.isAsking)
        catchUp.asked()
        #expect(catchUp == .asking && catchUp.isAsking)
        catchUp.answered(succeeded: true)
        #expect(catchUp == .none)

        catchUp.asked()
        catchUp.answered(succeeded: false)
        #expect(catchUp == .owed, "a failed request is made again once connected")

        catchUp.asked()
        catchUp.interrupted()
        #expect(catchUp == .askingInterrupted && catchUp.isAsking)
        catchUp.answered(succeeded: true)
        #expect(catchUp == .owed, "what was pushed after the request went out may be lost")

        catchUp.answered(succeeded: true)
        #expect(catchUp == .owed, "an answer with no request under way changes nothing")
    }
}
