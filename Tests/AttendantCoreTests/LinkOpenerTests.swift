import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Synchronization
import TestSupport
import Testing

/// The daemon's link policy (`[links]`, ``LinkOpener``): schemes, the D-Bus handler's answer and
/// silence, the claiming command, and the opener, with real programs (shell scripts that record what
/// they were given) instead of a browser.
@Suite(.timeLimit(.minutes(2))) struct LinkOpenerTests {
    /// A folder with `opener` and `claim` scripts that append their arguments to `log`.
    final class Scripts: Sendable {
        let directory: String
        var log: String { self.directory + "/log" }
        var opener: String { self.directory + "/opener" }

        init() throws {
            self.directory = try makeTemporaryFolder("attendant-links")
            try self.write("opener", "#!/bin/sh\necho \"open $*\" >> \(self.log)\n")
            // `claim STATUS`: records the URL, exits with STATUS.
            try self.write("claim", "#!/bin/sh\nstatus=$1; shift\necho \"claim $*\" >> \(self.log)\nexit $status\n")
            try self.write("slow", "#!/bin/sh\nsleep 5\necho \"slow $*\" >> \(self.log)\n")
        }

        func write(_ name: String, _ text: String) throws {
            let path = self.directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }

        var lines: [String] {
            ((try? String(contentsOfFile: self.log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        deinit { try? FileManager.default.removeItem(atPath: self.directory) }
    }

    let records = LogRecords()

    func opener(_ settings: LinkSettings, ask: LinkOpener.AskHandler? = nil) -> LinkOpener {
        let records = self.records
        var logger = Logger(label: "attendant.test") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .trace
        return LinkOpener(settings: settings, askHandler: ask, logger: logger)
    }

    func settings(_ scripts: Scripts, _ change: (inout LinkSettings) -> Void = { _ in }) -> LinkSettings {
        var settings = LinkSettings()
        settings.opener = [scripts.opener]
        // The longest wait allowed: a busy machine must not turn a program's answer into "still running".
        settings.handlerTimeout = LinkSettings.longestHandlerTimeout
        change(&settings)
        return settings
    }

    @Test func httpAndHTTPSAreOpenedByTheOpener() async throws {
        let scripts = try Scripts()
        let links = self.opener(self.settings(scripts))
        #expect(await links.open("https://example.com/refund?id=7", channel: "karte") == .opened(by: scripts.opener))
        #expect(await links.open("HTTP://example.com/", channel: "karte") == .opened(by: scripts.opener))
        #expect(scripts.lines == ["open https://example.com/refund?id=7", "open HTTP://example.com/"])
        // The log names the link without its query.
        #expect(self.records.text.contains("https://example.com/refund…"))
        #expect(!self.records.text.contains("id=7"))
    }

    @Test func otherSchemesAreRefusedAndLoggedUnlessConfigured() async throws {
        let scripts = try Scripts()
        let links = self.opener(self.settings(scripts))
        for url in ["file:///etc/passwd", "javascript:alert(1)", "mailto:help@example.com", "example.com/no-scheme", "https://example.com/\u{7}bell"]
        {
            let outcome = await links.open(url, channel: "karte")
            guard case .refused = outcome else {
                Issue.record("\(url): \(outcome)")
                continue
            }
        }
        #expect(scripts.lines.isEmpty)
        #expect(self.records.all.filter { $0.level == .warning && $0.message.hasPrefix("link refused") }.count == 5)
        #expect(self.records.text.contains("the scheme \"file\" is not allowed (allowed: http, https; add it to [links] schemes to open such links)"))

        let mail = self.opener(self.settings(scripts) { $0.schemes = ["mailto"] })
        #expect(await mail.open("mailto:help@example.com", channel: "karte") == .opened(by: scripts.opener))
    }

    @Test func theDBusHandlerClaimsOrLetsOpen() async throws {
        let scripts = try Scripts()
        let asked = Mutex<[String]>([])
        let links = self.opener(self.settings(scripts)) { name, url, _ in
            asked.withLock { $0.append("\(name) \(url)") }
            return !url.contains("claim-me")
        }
        #expect(await links.open("https://example.com/a", channel: "karte") == .opened(by: scripts.opener))  // no handler registered yet
        links.setHandler(":1.42")
        #expect(await links.open("https://example.com/claim-me", channel: "karte") == .claimed(by: "the URL handler :1.42"))
        #expect(await links.open("https://example.com/b", channel: "karte") == .opened(by: scripts.opener))
        links.setHandler("")
        #expect(await links.open("https://example.com/claim-me", channel: "karte") == .opened(by: scripts.opener))
        #expect(asked.withLock { $0 } == [":1.42 https://example.com/claim-me", ":1.42 https://example.com/b"])
        #expect(scripts.lines == ["open https://example.com/a", "open https://example.com/b", "open https://example.com/claim-me"])
    }

    @Test func aSilentHandlerMeansOpen() async throws {
        let scripts = try Scripts()
        let links = self.opener(self.settings(scripts)) { _, _, _ in nil }
        links.setHandler(":1.7")
        #expect(await links.open("https://example.com/", channel: "karte") == .opened(by: scripts.opener))
        #expect(self.records.text.contains("the URL handler :1.7 gave no answer"))
    }

    @Test func theCommandClaimsWithStatusZeroAndPassesWithOne() async throws {
        let scripts = try Scripts()
        let claim = self.opener(self.settings(scripts) { $0.command = [scripts.directory + "/claim", "0", "{url}"] })
        #expect(await claim.open("https://example.com/x", channel: "karte") == .claimed(by: "the [links] command \(scripts.directory)/claim"))
        let pass = self.opener(self.settings(scripts) { $0.command = [scripts.directory + "/claim", "1"] })
        #expect(await pass.open("https://example.com/y", channel: "karte") == .opened(by: scripts.opener))
        let broken = self.opener(self.settings(scripts) { $0.command = [scripts.directory + "/claim", "3"] })
        #expect(await broken.open("https://example.com/z", channel: "karte") == .opened(by: scripts.opener))
        #expect(self.records.text.contains("failed (exited with status 3); opening the link"))
        #expect(
            scripts.lines == [
                "claim https://example.com/x", "claim https://example.com/y", "open https://example.com/y", "claim https://example.com/z",
                "open https://example.com/z",
            ]
        )
    }

    @Test func anOpenerThatCannotRunFailsAndOneThatLingersCountsAsOpened() async throws {
        let scripts = try Scripts()
        let missing = self.opener(self.settings(scripts) { $0.opener = ["/nonexistent/xdg-open"] })
        let outcome = await missing.open("https://example.com/", channel: "karte")
        #expect(outcome.name == "failed")
        #expect(outcome.detail.contains("cannot run /nonexistent/xdg-open"))
        let slow = self.opener(
            self.settings(scripts) {
                $0.opener = [scripts.directory + "/slow"]
                $0.handlerTimeout = .milliseconds(300)
            }
        )
        #expect(await slow.open("https://example.com/slow", channel: "karte") == .opened(by: scripts.directory + "/slow"))
    }

    @Test func theLinksTableIsReadAndChecked() throws {
        let configuration = try AttendantConfiguration(
            toml:
                "[links]\nschemes = [\"mailto\", \"Tel\"]\ncommand = [\"my-links\", \"--url\", \"{url}\"]\nopener = [\"gio\", \"open\"]\nhandler-timeout = \"500ms\"\n",
            file: nil
        )
        #expect(configuration.links.allowedSchemes == ["http", "https", "mailto", "tel"])
        #expect(configuration.links.command == ["my-links", "--url", "{url}"])
        #expect(configuration.links.opener == ["gio", "open"])
        #expect(configuration.links.handlerTimeout == .milliseconds(500))
        #expect(try AttendantConfiguration(toml: "", file: nil).links == LinkSettings())
        do {
            _ = try AttendantConfiguration(
                toml: "[links]\nschemes = [\"mail:to\"]\nopener = []\nhandler-timeout = 60\nbrowser = \"x\"\n",
                file: "/a.toml"
            )
            Issue.record("expected errors")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "/a.toml:2: key \"schemes\" in [links]: \"mail:to\" is not a URL scheme; write schemes without \":\", such as \"mailto\"",
                    "/a.toml:3: key \"opener\" in [links]: expected a program and its arguments, such as [\"xdg-open\"]",
                    "/a.toml:4: key \"handler-timeout\" in [links]: expected a duration of at most 30 seconds, found the integer 60",
                    "/a.toml:5: key \"browser\" in [links]: unknown key; [links] takes \"schemes\", \"command\", \"opener\", \"handler-timeout\"",
                ]
            )
        }
    }
}
