/// Checks `probe` every few milliseconds until it returns a value or `timeout` passes. The simulator's
/// waits are for tests and the demo, where a 5 ms poll costs nothing and needs no continuation bookkeeping.
func poll<T: Sendable>(
    timeout: Duration,
    failure: @autoclosure () -> SimulatorError,
    _ probe: () throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if let value = try probe() { return value }
        guard clock.now < deadline else { throw failure() }
        try await Task.sleep(for: .milliseconds(5))
    }
}
