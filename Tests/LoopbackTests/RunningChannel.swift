import AttendantPluginAPI

/// Runs `body` with the channel's `run()` beside it, as the host runs it for the channel's life, and ends
/// it afterwards: the Loopback channel's events, log lines and store writes come from the worker `run()`
/// runs.
func whileRunning(_ channel: any Channel, _ body: () async throws -> Void) async throws {
    try await withThrowingDiscardingTaskGroup { group in
        group.addTask { await channel.run() }
        try await body()
        group.cancelAll()
    }
}
