import ArgumentParser
import AttendantExecutor
import Glibc

/// The process entry point. It is synchronous so that the daemon's executor is in place before the first
/// task exists: Swift's default global executor on Linux starts libdispatch's worker pool, and with it a
/// once-a-second wake-up that lasts for the life of the process (DESIGN.md section 8).
@main
enum Launch {
    /// Written once in `main()` before any task starts (task creation orders it before every read);
    /// `Attendantd.run()` logs a fallback once logging is set up.
    nonisolated(unsafe) static var installation = TaskRuntime.Installation.installed

    static func main() {
        self.installation = TaskRuntime.install()
        Task {
            // Parses the arguments, runs the command, and exits with its status on errors or --help.
            await Attendantd.main()
            exit(EXIT_SUCCESS)
        }
        do {
            try TaskRuntime.runMainLoop()
        } catch {
            Attendantd.printError("attendantd: the main executor stopped: \(error). Restart the daemon.")
            exit(EXIT_FAILURE)
        }
    }
}
