import CSystemd
import Glibc
import Synchronization

/// Tells the service manager about the daemon's state through `sd_notify(3)`.
///
/// Outside systemd (no `$NOTIFY_SOCKET`) every call does nothing. The notifier remembers the last
/// status line and only sends a change.
public final class ServiceNotifier: Sendable {
    private let lastStatus = Mutex<String?>(nil)

    public init() {}

    /// `READY=1`, with the status line if given: startup or a reload finished.
    public func ready(status: String? = nil) {
        self.send(["READY=1"], status: status)
    }

    /// `RELOADING=1` with the monotonic time systemd 253+ asks for (`MONOTONIC_USEC`).
    public func reloading(status: String? = nil) {
        self.send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"], status: status)
    }

    /// `STOPPING=1`: graceful shutdown began.
    public func stopping(status: String? = nil) {
        self.send(["STOPPING=1"], status: status)
    }

    /// `STATUS=…`: a one-line summary shown by `systemctl --user status`.
    public func status(_ line: String) {
        self.send([], status: line)
    }

    /// `WATCHDOG=1`: the daemon's loops are alive.
    public func watchdog() {
        self.send(["WATCHDOG=1"], status: nil)
    }

    private func send(_ assignments: [String], status: String?) {
        var lines = assignments
        if let status {
            let oneLine = status.replacing("\n", with: " ")
            let changed = self.lastStatus.withLock { last in
                defer { last = oneLine }
                return last != oneLine
            }
            if changed || !assignments.isEmpty { lines.append("STATUS=\(oneLine)") }
        }
        guard !lines.isEmpty else { return }
        _ = sd_notify(0, lines.joined(separator: "\n"))
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}

/// The service watchdog, as configured by the unit's `WatchdogSec=`.
public enum ServiceWatchdog {
    /// The interval within which systemd expects `WATCHDOG=1`, or nil when the watchdog is off (or the
    /// `$WATCHDOG_PID` is another process).
    public static func interval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}
