import Foundation
import Glibc

/// A `dbus-daemon` of the test's own, on a socket in a private folder; stopped on deinit.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let folder: String
    private let process: SpawnedProcess

    public init() async throws {
        self.folder = try makeTemporaryFolder("attendant-bus")
        self.address = "unix:path=\(self.folder)/bus"
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // --print-address writes the address once the daemon accepts connections (the socket file
        // exists a little earlier, between bind and listen).
        process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1", "--address=\(self.address)"]
        let ready = Pipe()
        process.standardOutput = ready
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard await firstLine(of: ready.fileHandleForReading.fileDescriptor) != nil else {
            // It exited before it was ready, or said nothing within the bound.
            process.exitStatus(within: 0)
            throw FixtureError("dbus-daemon did not print its address on \(self.address)")
        }
    }

    /// Ends the bus daemon: every connection to it closes. dbus-daemon ignores SIGTERM.
    public func stop() {
        guard self.process.isRunning else { return }
        self.process.signal(SIGKILL)
        self.process.exitStatus()
    }

    deinit {
        self.stop()
        try? FileManager.default.removeItem(atPath: self.folder)
    }
}

/// A `dbus-daemon` configuration for a bus that owns no activatable services and lets everyone (this user)
/// talk and monitor, listening on `socket`.
public func privateBusConfiguration(socket: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>session</type>
      <keep_umask/>
      <listen>unix:path=\(socket)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
      </policy>
    </busconfig>
    """
}
