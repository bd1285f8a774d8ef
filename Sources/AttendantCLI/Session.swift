import ArgumentParser
import AttendantControl
import Systemd

/// What every command does around its request: connect to the daemon, and turn a failure into
/// `attendantctl: <message>` on stderr (and an error object on stdout with `--json`) and an exit code.
enum Session {
    static func run(
        json: Bool,
        address: BusConnection.Address = .session,
        requireDaemon: Bool = true,
        _ body: (ControlClient) async throws(ControlClientError) -> Void
    ) async throws(ExitCode) {
        var failure: ControlClientError? = nil
        do {
            let client = try await ControlClient.connect(address, requireDaemon: requireDaemon)
            do {
                try await body(client)
            } catch {
                failure = error
            }
            await client.connection.close()
        } catch {
            failure = error
        }
        if let failure {
            self.report(failure, json: json)
            throw ExitCode(self.exitCode(for: failure))
        }
    }

    static func exitCode(for error: ControlClientError) -> Int32 {
        error.code == .notRunning || error.code == .noBus ? Attendantctl.notRunningExitCode : 1
    }

    static func report(_ error: ControlClientError, json: Bool) {
        Terminal.error("attendantctl: " + error.message)
        if json {
            let object = JSON.object([
                (
                    "error",
                    .object([
                        ("code", .string(error.code.description)), ("name", .optional(error.name, JSON.string)),
                        ("message", .string(error.message)),
                    ])
                )
            ])
            Terminal.out(object.text)
        }
    }
}
