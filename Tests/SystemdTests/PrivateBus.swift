import Foundation
import Glibc

/// A `dbus-daemon` of the test's own, on a socket in a private folder; stopped on deinit.
final class PrivateBus: @unchecked Sendable {
    let address: String
    let folder: String
    private let process: Process

    init() throws {
        var template = Array("/tmp/attendant-bus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        self.folder = String(cString: made)
        self.address = "unix:path=\(self.folder)/bus"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(self.address)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: self.folder + "/bus") {
            usleep(10_000)
        }
        guard FileManager.default.fileExists(atPath: self.folder + "/bus") else {
            throw POSIXError(.ETIMEDOUT)
        }
    }

    /// Ends the bus daemon (every connection to it is closed).
    func stop() {
        guard self.process.isRunning else { return }
        // dbus-daemon ignores SIGTERM.
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }

    deinit {
        self.stop()
        try? FileManager.default.removeItem(atPath: self.folder)
    }
}

/// Runs a command and returns its exit status and output.
func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
