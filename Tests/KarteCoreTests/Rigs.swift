import AttendantPluginAPI
import AttendantPluginKit
import KarteCore

/// Deterministic ids: each pv_id drawn is different and reproducible.
struct CountingRandom: RandomNumberGenerator, Sendable {
    var state: UInt64 = 0
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

typealias Tracking = KarteTrackingMachine
typealias Actions = KarteActionsMachine

let t0 = UnixTime(secondsSince1970: 1_800_000_000)

func tracking() -> Tracking {
    Tracking(configuration: .init(appInfo: Fixtures.appInfo), visitorID: "VIS", random: CountingRandom())
}

extension [Tracking.Action] {
    var requests: [KarteTrackRequest] {
        self.compactMap { if case .send(let request, _) = $0 { request } else { nil } }
    }

    var bodies: [JSONValue] {
        self.compactMap { if case .send(_, let body) = $0 { try? JSONValue.parse(body) } else { nil } }
    }

    var armed: [(TimerID<Tracking.TimerKind>, Duration)] {
        self.compactMap { if case .arm(let id, let delay) = $0 { (id, delay) } else { nil } }
    }

    var pageChanges: [KartePageChange] {
        self.compactMap { if case .pageChanged(let change) = $0 { change } else { nil } }
    }
}

extension [Actions.Action] {
    var tracked: [KarteEvent] {
        self.compactMap { if case .track(let event) = $0 { event } else { nil } }
    }

    var shownIDs: [String] {
        self.compactMap { if case .show(let action) = $0 { action.message.actionID } else { nil } }
    }

    var closed: [(String, Actions.CloseReason)] {
        self.compactMap { if case .close(let id, let reason) = $0 { (id, reason) } else { nil } }
    }
}

extension Tracking {
    /// Tracks, then ends the batching window: the requests that window sent.
    mutating func flushNow(_ actions: [Action]) -> [Action] {
        actions + actions.armed.filter { $0.0.kind == .flush }.flatMap { self.timerFired($0.0) }
    }
}
