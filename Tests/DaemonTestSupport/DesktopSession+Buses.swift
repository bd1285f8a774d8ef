import Foundation
import TestSupport

extension DesktopSession {
    // MARK: Buses

    /// `busctl --address=ADDRESS --json=short ARGUMENTS`; its output parsed, or null when it printed nothing.
    @discardableResult
    package static func busctl(_ address: String, _ environment: [String: String], _ arguments: [String]) async throws -> JSONValue {
        let result = try await runTool("busctl", ["--address=" + address, "--json=short", "--timeout=20"] + arguments, environment: environment)
        guard result.status == 0 else {
            throw FixtureError("busctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? .null : try JSONValue(parsing: text)
    }

    package static func hasOwner(_ name: String, address: String, environment: [String: String]) async throws -> Bool {
        let reply = try await Self.busctl(
            address,
            environment,
            ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name]
        )
        return reply["data"]?[0]?.bool == true
    }

    /// Calls a method on the system bus (the logind mock); returns the reply's arguments.
    @discardableResult
    package func callSystemBus(
        _ path: String,
        _ interface: String,
        _ method: String,
        _ signature: String = "",
        _ arguments: [String] = []
    ) async throws -> [JSONValue] {
        let reply = try await Self.busctl(
            self.systemBusAddress,
            self.toolEnvironment,
            ["call", Self.login1, path, interface, method] + (signature.isEmpty ? [] : [signature] + arguments)
        )
        return reply["data"]?.array ?? []
    }

    /// Starts a monitor on the system bus (started when asked, so it sees what follows).
    package func monitorSystemBus() async throws -> BusMonitor {
        try await BusMonitor(address: self.systemBusAddress, environment: self.toolEnvironment)
    }

}
