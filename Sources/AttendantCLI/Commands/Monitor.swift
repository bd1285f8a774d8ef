import ArgumentParser
import AttendantControl
import Systemd
import UnixSignals

extension Attendantctl {
    struct Monitor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the daemon's events as they happen, one line each, until interrupted.",
            discussion: """
                Follows the signals ChannelEvent, ChannelStateChanged and DoNotDisturbChanged, and says when \
                attendantd stops or starts again. Ends with status 0 on SIGINT (Ctrl-C) or SIGTERM, with 1 \
                when the session bus goes away. When attendantd is not running it exits with 3, or with \
                --wait waits for it to start.

                JSON: one object per line with the keys time (Unix seconds) and signal, then by signal: \
                ChannelEvent: channel, event, details (the event's fields as an object); \
                ChannelStateChanged: channel, state, detail; DoNotDisturbChanged: doNotDisturb; \
                NameOwnerChanged (attendantd stopped or started): running.
                """
        )

        @Flag(name: .long, help: "When attendantd is not running, wait for it to start instead of exiting.")
        var wait = false

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let json = self.output.json
            try await Session.run(json: json, requireDaemon: false) { client throws(ControlClientError) in
                let signals = try await client.signals()
                let running = try await client.daemonRunningChanges()
                let interrupts = await UnixSignalsSequence(trapping: .sigint, .sigterm)
                // A round trip through the bus: once it is answered, both matches are in place, so
                // nothing the daemon does after this answer is missed.
                let address = client.connection.address
                if try await client.daemonOwner() == nil {
                    guard self.wait else { throw .notRunning(address) }
                    Terminal.error("attendantd is not running on this \(address); waiting for it to start. Ctrl-C stops.")
                } else {
                    Terminal.error("Monitoring attendantd on the \(address); Ctrl-C stops.")
                }

                let interrupted = await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        for await signal in signals {
                            let now = LocalTime.now()
                            Terminal.out(json ? signal.json(time: now).text : signal.text(time: now))
                        }
                        return false
                    }
                    group.addTask {
                        for await isRunning in running {
                            let now = LocalTime.now()
                            if json {
                                Terminal.out(
                                    JSON.object([("time", .int(now)), ("signal", .string("NameOwnerChanged")), ("running", .bool(isRunning))]).text
                                )
                            } else {
                                Terminal.out("\(LocalTime.format(now))  attendantd \(isRunning ? "started" : "stopped")")
                            }
                        }
                        return false
                    }
                    group.addTask {
                        for await _ in interrupts { return true }
                        return false
                    }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                if !interrupted {
                    throw ControlClientError(code: .failed, message: "the connection to the \(client.connection.address) closed")
                }
            }
        }
    }
}
