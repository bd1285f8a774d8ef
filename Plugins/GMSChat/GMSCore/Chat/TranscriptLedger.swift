/// Keeps a chat's transcript in order, each event once, whatever order and however often CometD delivers
/// them (it does not order server-to-client messages, and a replay after a new session repeats rows).
///
/// ``shown`` is the high-water mark: every position up to it has been handed on. An event past the next
/// expected position waits until the gap before it fills; if it does not (a row the server will never
/// send again), the driver asks for a replay from ``expected`` and, failing that, ``skipGap()`` hands on
/// what waits, so nothing held is lost.
package struct TranscriptLedger: Sendable, Hashable {
    /// The highest position handed on; persisted, and sent as the background disconnect's position.
    package private(set) var shown: Int
    private var waiting: [Int: GMSTranscriptEvent] = [:]
    /// Beyond this many rows waiting behind a gap, the gap is given up on.
    package let waitingLimit: Int

    package init(shown: Int = 0, waitingLimit: Int = 10_000) {
        self.shown = shown
        self.waitingLimit = waitingLimit
    }

    /// The next position expected: what a replay asks for.
    package var expected: Int { self.shown + 1 }

    /// The first missing position while rows wait behind it.
    package var gap: Int? { self.waiting.isEmpty ? nil : self.expected }

    package var waitingCount: Int { self.waiting.count }

    package struct Outcome: Sendable, Hashable {
        /// New events in transcript order, with no gap before them.
        package var released: [GMSTranscriptEvent] = []
        /// Events at or below the high-water mark, or already waiting: dropped.
        package var duplicates = 0
    }

    /// Takes a batch of events, in any order.
    package mutating func accept(_ events: [GMSTranscriptEvent]) -> Outcome {
        var outcome = Outcome()
        for event in events {
            if event.position <= self.shown || self.waiting[event.position] != nil {
                outcome.duplicates += 1
            } else {
                self.waiting[event.position] = event
            }
        }
        self.release(into: &outcome.released)
        if self.waiting.count > self.waitingLimit {
            outcome.released += self.skipGap()
        }
        return outcome
    }

    /// Gives up on the missing rows: hands on everything waiting, in order.
    package mutating func skipGap() -> [GMSTranscriptEvent] {
        guard let first = self.waiting.keys.min() else { return [] }
        self.shown = first - 1
        var released: [GMSTranscriptEvent] = []
        while !self.waiting.isEmpty {
            self.release(into: &released)
            if let next = self.waiting.keys.min() { self.shown = next - 1 }
        }
        return released
    }

    private mutating func release(into released: inout [GMSTranscriptEvent]) {
        while let next = self.waiting.removeValue(forKey: self.shown + 1) {
            released.append(next)
            self.shown += 1
        }
    }
}
