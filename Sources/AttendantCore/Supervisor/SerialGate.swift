/// Runs operations one at a time, in the order they arrived: the host's promise that a channel's
/// methods (other than `perform`) never run concurrently, kept across the supervisor's own calls and
/// the session monitor's foreground/background changes.
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async rethrows -> T {
        if self.busy {
            await withCheckedContinuation { self.waiting.append($0) }
        }
        self.busy = true
        defer {
            if self.waiting.isEmpty {
                self.busy = false
            } else {
                self.waiting.removeFirst().resume()
            }
        }
        return try await operation()
    }
}
