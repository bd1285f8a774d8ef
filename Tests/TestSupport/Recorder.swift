import Synchronization

/// Values handed over from other tasks or threads (events, timer firings), awaited one by one in order.
public final class Recorder<Event: Sendable>: Sendable {
    public struct Timeout: Error, CustomStringConvertible {
        public var description: String
    }

    private let state = Mutex<(events: [Event], taken: Int)>(([], 0))

    public init() {}

    public func add(_ event: Event) { self.state.withLock { $0.events.append(event) } }

    /// Everything added so far.
    public var all: [Event] { self.state.withLock { $0.events } }

    /// The next value not yet taken, waiting up to `seconds` of the wall clock for it.
    public func next(within seconds: Double = 60) async throws -> Event {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while clock.now < deadline {
            let event = self.state.withLock { state -> Event? in
                guard state.taken < state.events.count else { return nil }
                defer { state.taken += 1 }
                return state.events[state.taken]
            }
            if let event { return event }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Timeout(description: "nothing arrived within \(seconds) s")
    }
}
