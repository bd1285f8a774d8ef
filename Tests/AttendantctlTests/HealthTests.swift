import Testing

@testable import AttendantControl

/// The health decision table: each status with its exit code and summary line.
@Suite struct HealthTests {
    static let warning: Int64 = 15 * 60

    static func channel(
        _ name: String,
        _ state: String = "listening",
        detail: String = "",
        failure: ChannelRecord.FailureReason? = nil,
        expiresIn: Int64? = nil,
        lastError: String? = nil,
        failures: UInt32 = 0
    ) -> ChannelRecord {
        ChannelRecord(
            name: name,
            plugin: "loopback",
            state: state,
            detail: detail,
            failure: failure,
            tokenExpiresIn: expiresIn,
            tokenLastError: lastError,
            tokenFailures: failures
        )
    }

    static func evaluate(_ channels: [ChannelRecord]) -> HealthReport {
        HealthReport.evaluate(channels, tokenWarning: Self.warning)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var channels: [ChannelRecord]
        var exitCode: Int32
        var line: String
        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(
            name: "all listening",
            channels: [channel("desk"), channel("voice")],
            exitCode: 0,
            line: "ATTENDANT OK - 2 channels listening | channels=2;;;0 listening=2;;;0"
        ),
        Case(
            name: "one listening, one starting, a token far from expiry",
            channels: [channel("desk", expiresIn: 3600), channel("voice", "starting")],
            exitCode: 0,
            line: "ATTENDANT OK - 1 channel listening, 1 starting | channels=2;;;0 listening=1;;;0 desk_token_expiry=3600s;900:;1:"
        ),
        Case(
            name: "a token just outside the warning",
            channels: [channel("desk", expiresIn: 900)],
            exitCode: 0,
            line: "ATTENDANT OK - 1 channel listening | channels=1;;;0 listening=1;;;0 desk_token_expiry=900s;900:;1:"
        ),
        Case(
            name: "a chat in the background (disconnected while asleep or locked): no problem, not listening",
            channels: [channel("chat", "background"), channel("voice")],
            exitCode: 0,
            line: "ATTENDANT OK - 1 channel listening, 1 background | channels=2;;;0 listening=1;;;0"
        ),
        Case(
            name: "recovering",
            channels: [channel("desk", "recovering", detail: "connection refused"), channel("voice")],
            exitCode: 1,
            line: "ATTENDANT WARNING - desk recovering: connection refused | channels=2;;;0 listening=1;;;0"
        ),
        Case(
            name: "a token expiring within the warning",
            channels: [channel("desk", expiresIn: 899)],
            exitCode: 1,
            line: "ATTENDANT WARNING - desk token expires in 14 min | channels=1;;;0 listening=1;;;0 desk_token_expiry=899s;900:;1:"
        ),
        Case(
            name: "the last renewal failed",
            channels: [channel("desk", expiresIn: 3000, lastError: "HTTP 503", failures: 2)],
            exitCode: 1,
            line: "ATTENDANT WARNING - desk token renewal failed (2 times): HTTP 503 | channels=1;;;0 listening=1;;;0 desk_token_expiry=3000s;900:;1:"
        ),
        Case(
            name: "no channels",
            channels: [],
            exitCode: 1,
            line: "ATTENDANT WARNING - no channels configured | channels=0;;;0 listening=0;;;0"
        ),
        Case(
            name: "a state this version does not know",
            channels: [channel("desk", "dozing")],
            exitCode: 1,
            line: "ATTENDANT WARNING - desk is in an unknown state \"dozing\" | channels=1;;;0 listening=0;;;0"
        ),
        Case(
            name: "failed: sign-in needed",
            channels: [channel("ghost", "failed", detail: "sign-in needed: token rejected", failure: .signInNeeded), channel("desk")],
            exitCode: 2,
            line: "ATTENDANT CRITICAL - ghost failed: sign-in needed: token rejected | channels=2;;;0 listening=1;;;0"
        ),
        Case(
            name: "a failure reason in a state this version does not know",
            channels: [channel("ghost", "signed-out", detail: "sign-in needed: token rejected", failure: .signInNeeded)],
            exitCode: 2,
            line: "ATTENDANT CRITICAL - ghost failed: sign-in needed: token rejected | channels=1;;;0 listening=0;;;0"
        ),
        Case(
            name: "an expired token",
            channels: [channel("desk", "recovering", expiresIn: -180)],
            exitCode: 2,
            line:
                "ATTENDANT CRITICAL - desk token expired 3 min ago; desk recovering | channels=1;;;0 listening=0;;;0 desk_token_expiry=-180s;900:;1:"
        ),
        Case(
            name: "a token expiring this second counts as expired",
            channels: [channel("desk", expiresIn: 0)],
            exitCode: 2,
            line: "ATTENDANT CRITICAL - desk token expired just now | channels=1;;;0 listening=1;;;0 desk_token_expiry=0s;900:;1:"
        ),
        Case(
            name: "critical before warning, channel order within each",
            channels: [
                channel("a", "recovering", detail: "timeout"), channel("b", "failed", detail: "bad plugin"),
                channel("c", "recovering"), channel("d", "failed"),
            ],
            exitCode: 2,
            line: "ATTENDANT CRITICAL - b failed: bad plugin; d failed; a recovering: timeout; c recovering | channels=4;;;0 listening=0;;;0"
        ),
    ]

    @Test(arguments: cases)
    func decision(_ example: Case) {
        let report = Self.evaluate(example.channels)
        #expect(report.status.exitCode == example.exitCode)
        #expect(report.line == example.line)
    }

    @Test func unknownWhenTheDaemonCannotBeAsked() {
        let report = HealthReport.unknown("attendantd is not running on this session bus")
        #expect(report.status == .unknown && report.status.exitCode == 3)
        #expect(report.line == "ATTENDANT UNKNOWN - attendantd is not running on this session bus")
    }

    @Test func statusesOrderBySeverity() {
        #expect([HealthReport.Status.critical, .ok, .unknown, .warning].sorted() == [.ok, .warning, .critical, .unknown])
        #expect([HealthReport.Status.ok, .warning, .critical, .unknown].map(\.label) == ["OK", "WARNING", "CRITICAL", "UNKNOWN"])
    }

    @Test func theWarningThresholdIsAParameter() {
        let desk = Self.channel("desk", expiresIn: 3000)
        #expect(HealthReport.evaluate([desk], tokenWarning: 3000).status == .ok)
        #expect(HealthReport.evaluate([desk], tokenWarning: 3001).status == .warning)
    }

    @Test func theLineStaysOneLineAndKeepsThePerfdataSeparatorItsOwn() {
        let report = Self.evaluate([Self.channel("desk", "failed", detail: "line one\nline two | more")])
        #expect(report.summary == "desk failed: line one line two / more")
        #expect(report.line.split(separator: "|").count == 2)
    }

    @Test func perfdataLabelsAreQuotedWhenTheyNeedIt() {
        #expect(HealthReport.label("desk_token_expiry") == "desk_token_expiry")
        #expect(HealthReport.label("front desk's=x") == "'front desk''s_x'")
    }

    @Test func relativeTimes() {
        #expect(RelativeTime.duration(45) == "45 s")
        #expect(RelativeTime.duration(899) == "14 min")
        #expect(RelativeTime.duration(3600) == "1 h")
        #expect(RelativeTime.duration(7500) == "2 h 5 min")
        #expect(RelativeTime.duration(86400 * 3 + 3600 * 4 + 59) == "3 d 4 h")
        #expect(RelativeTime.from(840) == "in 14 min")
        #expect(RelativeTime.ago(180) == "3 min ago")
        #expect(RelativeTime.ago(0) == "just now")
        #expect(RelativeTime.relative(-61) == "1 min ago")
    }
}
