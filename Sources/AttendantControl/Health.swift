/// The daemon's health as a monitoring plugin reports it (the monitoring-plugins / Nagios convention):
/// a status with its exit code and one line, `ATTENDANT OK - 2 channels listening | perfdata`.
///
/// ``evaluate(_:tokenWarning:)`` is the whole decision, a pure function of the channel records:
///
/// | status | when |
/// | --- | --- |
/// | CRITICAL (2) | a channel is `failed` or names a ``ChannelRecord/FailureReason`` (it cannot listen; sign-in needed is a failure), or its token has expired |
/// | WARNING (1) | a channel is `recovering`, or is in a state this version does not know; a token expires within `tokenWarning`; a token's last renewal failed; no channel is configured |
/// | OK (0) | otherwise (`starting`, `listening`, `background`, `stopping`, `stopped` channels) |
///
/// A `background` channel is a chat the host sent to the background (asleep, or locked when `[session]
/// background-on` names the lock), where it closes its connection: no problem, but not counted as listening.
/// | UNKNOWN (3) | the daemon could not be asked: ``unknown(_:)`` |
public struct HealthReport: Sendable, Hashable {
    public struct Status: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The plugin's exit status.
        public let exitCode: Int32
        /// OK, WARNING, CRITICAL, UNKNOWN.
        public let label: String

        private init(_ exitCode: Int32, _ label: String) {
            self.exitCode = exitCode
            self.label = label
        }

        public static let ok = Status(0, "OK")
        public static let warning = Status(1, "WARNING")
        public static let critical = Status(2, "CRITICAL")
        public static let unknown = Status(3, "UNKNOWN")

        /// Ordered by severity: OK < WARNING < CRITICAL < UNKNOWN (UNKNOWN outranks all, as nothing is known).
        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.exitCode < rhs.exitCode }
        public var description: String { self.label }
    }

    /// One reason the status is not OK.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var status: Status
        /// The channel it is about; nil for the daemon as a whole.
        public var channel: String?
        /// "desk recovering: connection refused", "ghost token expired 3 min ago", …
        public var text: String
        public var description: String { self.text }
    }

    public var status: Status
    /// Most severe first; empty when OK.
    public var problems: [Problem]
    /// What the line says after the status: the problems, or a count of listening channels when OK.
    public var summary: String
    /// Performance data in the plugin format (`label=value[unit];warn;crit;min;max`), space-separated.
    public var perfdata: [String]

    /// `ATTENDANT <STATUS> - <summary>[ | <perfdata>]`: the line a monitoring system shows.
    public var line: String {
        let head = "ATTENDANT \(self.status.label) - \(self.summary)"
        return self.perfdata.isEmpty ? head : head + " | " + self.perfdata.joined(separator: " ")
    }

    /// The states ``evaluate(_:tokenWarning:)`` knows.
    public static let knownStates: Set<String> = ["starting", "listening", "background", "recovering", "failed", "stopping", "stopped"]

    /// The decision: see the table on ``HealthReport``.
    ///
    /// - Parameters:
    ///   - channels: `ListChannels`, in the daemon's order (problems keep it within a severity).
    ///   - tokenWarning: a token expiring within this many seconds is a WARNING.
    public static func evaluate(_ channels: [ChannelRecord], tokenWarning: Int64) -> HealthReport {
        var problems: [Problem] = []
        func add(_ status: Status, _ channel: ChannelRecord, _ text: String) {
            problems.append(Problem(status: status, channel: channel.name, text: Self.clean(text)))
        }
        for channel in channels {
            let detail = channel.detail.isEmpty ? "" : ": " + channel.detail
            switch channel.state {
            case _ where channel.state == "failed" || channel.failure != nil:
                add(.critical, channel, "\(channel.name) failed\(detail)")
            case "recovering": add(.warning, channel, "\(channel.name) recovering\(detail)")
            case _ where !Self.knownStates.contains(channel.state):
                add(.warning, channel, "\(channel.name) is in an unknown state \"\(channel.state)\"\(detail)")
            default: break
            }
            if let expiresIn = channel.tokenExpiresIn {
                if expiresIn <= 0 {
                    add(.critical, channel, "\(channel.name) token expired \(RelativeTime.ago(-expiresIn))")
                } else if expiresIn < tokenWarning {
                    add(.warning, channel, "\(channel.name) token expires \(RelativeTime.from(expiresIn))")
                }
            }
            if let error = channel.tokenLastError {
                let times = channel.tokenFailures > 1 ? " (\(channel.tokenFailures) times)" : ""
                add(.warning, channel, "\(channel.name) token renewal failed\(times): \(error)")
            }
        }
        if channels.isEmpty {
            problems.append(Problem(status: .warning, channel: nil, text: "no channels configured"))
        }
        // Stable: most severe first, the daemon's channel order within a severity.
        problems = problems.enumerated().sorted { a, b in
            a.element.status != b.element.status ? a.element.status > b.element.status : a.offset < b.offset
        }.map(\.element)

        let status = problems.first?.status ?? .ok
        let summary = problems.isEmpty ? Self.countSummary(channels) : problems.map(\.text).joined(separator: "; ")
        return HealthReport(status: status, problems: problems, summary: summary, perfdata: Self.perfdata(channels, tokenWarning: tokenWarning))
    }

    /// UNKNOWN: the daemon could not be asked (not running, no bus, an unexpected answer).
    public static func unknown(_ reason: String) -> HealthReport {
        let text = Self.clean(reason)
        return HealthReport(status: .unknown, problems: [Problem(status: .unknown, channel: nil, text: text)], summary: text, perfdata: [])
    }

    /// One line, and no `|` (it starts the perfdata): control characters become spaces, `|` becomes `/`.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar == "|" ? "/" : (scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
                }
            )
        )
    }

    /// "2 channels listening", "1 channel listening, 1 background, 1 starting, 1 stopped".
    private static func countSummary(_ channels: [ChannelRecord]) -> String {
        let listening = channels.filter { $0.state == "listening" }.count
        var parts = ["\(listening) channel\(listening == 1 ? "" : "s") listening"]
        for state in ["background", "starting", "stopping", "stopped"] {
            let count = channels.filter { $0.state == state }.count
            if count > 0 { parts.append("\(count) \(state)") }
        }
        return parts.joined(separator: ", ")
    }

    private static func perfdata(_ channels: [ChannelRecord], tokenWarning: Int64) -> [String] {
        var data = [
            "channels=\(channels.count);;;0",
            "listening=\(channels.filter { $0.state == "listening" }.count);;;0",
        ]
        for channel in channels {
            guard let expiresIn = channel.tokenExpiresIn else { continue }
            // Ranges "N:" alert below N: WARNING under tokenWarning seconds, CRITICAL at 0 and below.
            data.append("\(Self.label(channel.name + "_token_expiry"))=\(expiresIn)s;\(tokenWarning):;1:")
        }
        return data
    }

    /// A perfdata label: quoted when it needs to be, with `'` doubled; `=` cannot appear, so it becomes `_`.
    static func label(_ text: String) -> String {
        let cleaned = text.replacing("=", with: "_")
        if cleaned.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) { return cleaned }
        return "'" + cleaned.replacing("'", with: "''") + "'"
    }
}
