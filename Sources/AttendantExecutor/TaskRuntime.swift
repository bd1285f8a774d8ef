@_spi(ExperimentalCustomExecutors) import _Concurrency

/// Where the daemon's tasks run: `install()` puts them all on one `IdleExecutor` thread.
public enum TaskRuntime {
    /// What `install()` found.
    public enum Installation: Sendable, Equatable {
        /// Every task and the main actor run on the idle executor.
        case installed
        /// The runtime kept its own executors; the text says what it reported, for the log.
        case fallback(String)
    }

    /// Makes an `IdleExecutor` the main and the global executor. Call it from a synchronous `main()` before
    /// any task, `Task.sleep` or main-actor hop exists: the runtime creates its executors on first use, and
    /// once libdispatch's pool has started, its monitor ticks for the life of the process.
    ///
    /// The custom-executor SPI is experimental. Should a toolchain ignore the factory, the daemon still runs
    /// on the default executors (with the once-a-second wake-up); the result says so, and the daemon test
    /// `IdleWakeupTests` fails on its context-switch count.
    public static func install() -> Installation {
        _createExecutors(factory: Factory.self)
        let main = MainActor.executor
        let global = Task.defaultExecutor
        guard main is IdleExecutor, global is IdleExecutor else {
            return .fallback("the runtime kept its own executors (main: \(type(of: main)), global: \(type(of: global)))")
        }
        return .installed
    }

    /// The clock for the daemon's timers: an ``IdleClock`` on the idle executor (its cancelled sleeps wake
    /// nothing), `ContinuousClock` on the runtime's own executors. The same time either way.
    public static var clock: any Clock<Duration> {
        if let executor = MainActor.executor as? IdleExecutor { return IdleClock(executor: executor) }
        return ContinuousClock()
    }

    /// Runs the main executor's loop on this thread; it returns only after `stop()` (the daemon exits
    /// from a task instead). With the runtime's own executors this is `dispatchMain()`.
    public static func runMainLoop() throws -> Never {
        try MainActor.executor.run()
        fatalError("the main executor's run loop returned; nothing can run any more")
    }

    private enum Factory: ExecutorFactory {
        static let shared = IdleExecutor()
        static var mainExecutor: any MainExecutor { self.shared }
        static var defaultExecutor: any TaskExecutor { self.shared }
    }
}
