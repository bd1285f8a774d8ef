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
        process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address", "--address=\(self.address)"]
        let printed = Pipe()
        process.standardOutput = printed
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // The address is printed once the bus accepts connections (the socket file comes a little earlier).
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(printed.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        guard !line.isEmpty else { throw POSIXError(.ETIMEDOUT) }
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
