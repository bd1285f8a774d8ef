import ArgumentParser
import AttendantControl
import Systemd

extension Attendantctl {
    struct Health: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the daemon's health as a monitoring plugin (Nagios, Icinga, Checkmk, ...).",
            discussion: """
                Prints one line, ATTENDANT <STATUS> - <summary> | <perfdata>, and exits with 0 (OK) when \
                every channel listens or is starting, stopping, stopped or in the background (a chat \
                disconnected while the machine sleeps, or while the screen is locked when background-on \
                names the lock; not counted as listening); 1 (WARNING) when a channel is \
                recovering, a token expires within --token-warning, a token's last renewal failed, or no \
                channel is configured; 2 (CRITICAL) when a channel failed and cannot listen ("sign-in \
                needed" is a failure) or a token has expired; 3 (UNKNOWN) when attendantd is not running, \
                there is no session bus, or the arguments are wrong.

                Perfdata: channels, listening, and <channel>_token_expiry in seconds for each channel \
                with a token.

                JSON: an object with the keys status (OK, WARNING, CRITICAL, UNKNOWN), exitCode, summary, \
                problems (an array of objects with the keys status, channel, text), perfdata (an array \
                of strings).
                """
        )

        @Option(
            name: .long,
            help: ArgumentHelp("WARNING when a token expires sooner than this: seconds, or with a unit (90s, 15m, 2h).", valueName: "duration")
        )
        var tokenWarning: DurationArgument = DurationArgument(seconds: 15 * 60, text: "15m")

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let report: HealthReport
            do throws(ControlClientError) {
                let client = try await ControlClient.connect()
                do throws(ControlClientError) {
                    report = .evaluate(try await client.channels(), tokenWarning: self.tokenWarning.seconds)
                } catch {
                    await client.connection.close()
                    throw error
                }
                await client.connection.close()
            } catch {
                report = .unknown(error.message)
            }
            Terminal.out(self.output.json ? report.json.text : Table.oneLine(report.line))
            if report.status != .ok { throw ExitCode(report.status.exitCode) }
        }
    }
}

/// A duration on the command line: `900`, `90s`, `15m`, `2h`, `1d`.
struct DurationArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var seconds: Int64
    var text: String

    init(seconds: Int64, text: String) {
        self.seconds = seconds
        self.text = text
    }

    init?(argument: String) {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(argument)
        var factor: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            factor = unit
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int64(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        self.seconds = product
        self.text = argument
    }

    var description: String { self.text }
    var defaultValueDescription: String { self.text }
}
