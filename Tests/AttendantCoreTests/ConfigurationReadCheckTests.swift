import Synchronization
import Testing

@testable import AttendantCore

/// A reload reads the configuration in a child process first: a reader that aborts there refuses the
/// reload instead of taking the daemon down. The child here is a shell standing in for attendantd
/// `--cat-config` (the files follow its script as `--config FILE` arguments); the daemon's own reload
/// through the real attendantd is `SystemdProtocolTests.readyStatusWatchdogReloadAndStop`.
@Suite struct ConfigurationReadCheckTests {
    static func check(_ script: String, limit: Duration = .seconds(20)) -> ConfigurationReadCheck {
        ConfigurationReadCheck(command: ["/bin/sh", "-c", script, "attendantd"], limit: limit)
    }

    static func refusal(_ check: ConfigurationReadCheck, _ files: [String]) async -> (ConfigurationError?, [String]) {
        let warnings = Mutex<[String]>([])
        do throws(ConfigurationError) {
            try await check.check(files) { line in warnings.withLock { $0.append(line) } }
            return (nil, warnings.withLock { $0 })
        } catch {
            return (error, warnings.withLock { $0 })
        }
    }

    @Test func aReaderThatAbortsRefusesTheReloadNamingTheFiles() async throws {
        let (error, _) = await Self.refusal(
            Self.check("kill -ABRT $$"),
            ["/etc/attendant/attendant.toml", "/home/a/.config/attendant/attendant.toml"]
        )
        let message = try #require(error?.description)
        #expect(message.contains("the TOML reader stopped on /etc/attendant/attendant.toml, /home/a/.config/attendant/attendant.toml"), "\(message)")
        #expect(message.contains("Aborted"), "the signal is named: \(message)")
        #expect(message.contains("The running configuration stays"))
    }

    @Test func theChildIsGivenEveryFileByName() async throws {
        // The script aborts unless it was given exactly the files, each after --config.
        let script = #"[ "$*" = "--config /a.toml --config /b d/c.toml" ] || kill -ABRT $$"#
        let (error, warnings) = await Self.refusal(Self.check(script), ["/a.toml", "/b d/c.toml"])
        #expect(error == nil, "\(String(describing: error))")
        #expect(warnings.isEmpty)
    }

    @Test func aConfigurationErrorIsLeftToTheDaemonsOwnReading() async {
        // attendantd --cat-config exits 1 on a configuration error; the daemon then reports it in full.
        let (error, warnings) = await Self.refusal(Self.check("echo 'attendant.toml:3: unknown key' >&2; exit 1"), ["/a.toml"])
        #expect(error == nil)
        #expect(warnings.isEmpty)
    }

    @Test func aReaderThatDoesNotFinishIsStoppedAndRefusesTheReload() async throws {
        let (error, _) = await Self.refusal(Self.check("exec sleep 600", limit: .milliseconds(500)), ["/a.toml"])
        let message = try #require(error?.description)
        #expect(message.contains("reading /a.toml did not finish within 0.5 seconds"), "\(message)")
    }

    @Test func aChildThatCannotStartLeavesTheReadingToTheDaemon() async {
        let check = ConfigurationReadCheck(command: ["/nonexistent/attendantd", "--cat-config"])
        let (error, warnings) = await Self.refusal(check, ["/a.toml"])
        #expect(error == nil)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("cannot run /nonexistent/attendantd") == true, "\(warnings)")
    }
}
