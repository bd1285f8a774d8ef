import Foundation
import Glibc
import Synchronization

package struct FixtureError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The absolute path of an installed tool (the desktop tests fail, not skip, when one is missing).
package func installedTool(_ name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
        let candidate = directory + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    throw FixtureError("\(name) is not installed: run scripts/setup")
}

/// Waits until `condition` holds, checking every 20 ms; throws after `seconds` (a hang fails the test).
/// The limit only guards against a hang, and a passing test never waits it out: it is long enough for
/// a two-core machine busy with other work while a hundred suites start their daemons at once.
package func eventually(
    _ what: @autoclosure () -> String,
    within seconds: Double = 60,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        if Date() > deadline { throw FixtureError("timed out after \(seconds) s waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A value behind a lock, shareable with the callbacks that fill it.
package final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    package init(_ value: Value) { self.mutex = Mutex(value) }
    package func withLock<Result: Sendable>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try self.mutex.withLock(body)
    }
}
