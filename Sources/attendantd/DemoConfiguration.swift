import AttendantCore
import Glibc

/// The configuration `attendantd --demo` runs with: no files needed.
enum DemoConfiguration {
    static let toml = """
        [daemon]
        log-level = "info"

        [[channel]]
        name = "demo-desk"
        plugin = "loopback"
        keepalive-interval = "30s"

        [channel.loopback]
        contact-interval = "4s"
        ring-timeout = "3s"
        caller = "Ada Lovelace"
        caller-address = "sip:ada@loopback.invalid"
        """

    /// A fresh private folder for the demo's state database.
    static func makeStateDirectory() throws -> String {
        let base = EnvironmentVariables.all().first { $0.0 == "TMPDIR" }?.1 ?? "/tmp"
        var template = Array("\(base)/attendant-demo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DaemonStartError(description: "cannot create a temporary folder in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
