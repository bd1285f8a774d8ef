import Synchronization

/// A clock the test moves by hand, for token expiry and binding expiry.
final class ManualWallClock: Sendable {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_800_000_000) { self.seconds = Mutex(start) }

    var now: Double { self.seconds.withLock { $0 } }

    func advance(by seconds: Double) { self.seconds.withLock { $0 += seconds } }
}
