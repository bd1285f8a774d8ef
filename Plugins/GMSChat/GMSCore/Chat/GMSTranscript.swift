/// A chat's transcript as the session keeps it: the rows shown (a ``TranscriptLedger``, whose high-water
/// mark is the position persisted), and the two ways of asking GMS for rows that may be missing: the
/// replay of a gap, and the catch-up after an interruption.
///
/// A gap: CometD does not order deliveries, so rows behind a missing position wait a second for it
/// (``Gap/waiting``); then the chat's events after the position shown are asked for (``gapWaited()``), and
/// if the gap is still open a network delay later it is skipped. A catch-up (``CatchUp``): events pushed
/// to a connection that died may be lost (CometD has no delivery guarantee without its ack extension), so
/// the chat's events after the position shown are asked for again.
package struct GMSTranscript: Sendable, Hashable {
    package private(set) var ledger: TranscriptLedger
    /// The gap a replay was asked for; if it is still open when the replay's time is up, it is skipped.
    package private(set) var replayAskedFor: Int?
    package var catchUp = CatchUp.none

    /// The transcript shown up to `shown`.
    package init(shown: Int = 0) {
        self.ledger = TranscriptLedger(shown: shown)
    }

    /// The highest position shown: persisted, and the goodbye's position.
    package var shown: Int { self.ledger.shown }

    /// A new chat's transcript, from its start. The catch-up is the session's, not the chat's: it stays.
    package mutating func restart() {
        self.ledger = TranscriptLedger()
        self.replayAskedFor = nil
    }

    // MARK: Rows

    /// What the rows behind a gap do next.
    package enum Gap: Sendable, Hashable {
        /// No gap: the gap's timer ends.
        case closed
        /// Rows wait behind a missing position: give it a second (the gap's timer).
        case waiting
        /// The gap's replay was asked for: its timer runs on.
        case replaying
    }

    package struct Accepted: Sendable, Hashable {
        /// New rows in position order: each is shown, and the position shown rose to the last.
        package var released: [GMSTranscriptEvent]
        /// Rows shown already, or waiting already: dropped.
        package var duplicates: Int
        package var gap: Gap
    }

    /// Takes rows in any order.
    package mutating func accept(_ rows: [GMSTranscriptEvent]) -> Accepted {
        let outcome = self.ledger.accept(rows)
        let gap: Gap
        if let missing = self.ledger.gap {
            gap = self.replayAskedFor == missing ? .replaying : .waiting
        } else {
            self.replayAskedFor = nil
            gap = .closed
        }
        return Accepted(released: outcome.released, duplicates: outcome.duplicates, gap: gap)
    }

    /// What the gap's timer leads to.
    package enum GapWaited: Sendable, Hashable {
        /// Ask for the chat's events after the position shown, and give the replay a network delay.
        case askForReplay
        /// The replay did not fill the gap at `position` either: the rows after it, now shown.
        case skipped(position: Int, [GMSTranscriptEvent])
    }

    /// The rows behind a gap waited: a replay is asked for, or, when it was asked for already, the gap is
    /// skipped. Nil without a gap.
    package mutating func gapWaited() -> GapWaited? {
        guard let gap = self.ledger.gap else { return nil }
        guard self.replayAskedFor == gap else {
            self.replayAskedFor = gap
            return .askForReplay
        }
        self.replayAskedFor = nil
        return .skipped(position: gap, self.ledger.skipGap())
    }

    // MARK: Catching up

    /// The request for the chat's events after the position shown (v2 `requestNotifications`, v1
    /// `refresh`) that an interrupted session owes.
    package enum CatchUp: Sendable, Hashable {
        /// Nothing is owed.
        case none
        /// A request is under way.
        case asking
        /// A request is under way, and the session was interrupted since it went out: whatever it
        /// brings, the events are asked for again once a connect succeeds.
        case askingInterrupted
        /// The last request failed, or the session was interrupted: ask once a connect succeeds.
        case owed

        /// A request is under way.
        package var isAsking: Bool { self == .asking || self == .askingInterrupted }

        /// A request went out.
        package mutating func asked() {
            self = .asking
        }

        /// The request under way went through or failed.
        package mutating func answered(succeeded: Bool) {
            switch self {
            case .asking: self = succeeded ? .none : .owed
            case .askingInterrupted: self = .owed
            case .none, .owed: break
            }
        }

        /// The session was interrupted: what was pushed meanwhile may be lost.
        package mutating func interrupted() {
            switch self {
            case .none, .owed: self = .owed
            case .asking, .askingInterrupted: self = .askingInterrupted
            }
        }
    }
}
