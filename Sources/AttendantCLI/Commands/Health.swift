import ArgumentParser
import AttendantControl
import Systemd

extension Attendantctl {
    struct Health: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the daemon's health as a monitoring plugin (Nagios, Icinga, Checkmk, ...).",
            discussion: """
                Prints one line, ATTENDANT <STATUS> - <summary> | <perfdata>, and exits with:
                0 OK        every channel listening (or starting, stopping, stopped);
                1 WARNING   a channel is recovering; a token expires within --token-warning or its last \
                renewal failed; no channel is configured;
                2 CRITICAL  a channel failed and cannot listen (including "sign-in needed"), or a token \
                expired;
                3 UNKNOWN   attendantd is not running, there is no session bus, or the arguments are wrong.

                Perfdata: channels, listening, and <channel>_token_expiry in seconds for each channel \
                with a token.

                JSON: {"status","exitCode","summary","problems":[{"status","channel","text"}],"perfdata"}.
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
