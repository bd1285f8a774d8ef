import AttendantControl
import Foundation
import Glibc
import Systemd
import TestSupport
import Testing

/// `attendantctl` against the real `attendantd` (its ControlBus) on a private session bus, with
/// Loopback channels: every command the daemon can answer without a token source. What only a
/// scripted daemon can show (token health, each error name, recovering) is in CommandTests.
@Suite(.timeLimit(.minutes(3))) struct RealDaemonTests {
    /// attendantd with `configuration`, its state under a folder of its own, on `bus`.
    final class Daemon: Sendable {
        let process: CommandProcess
        let folder: String
        let configuration: String

        /// Starts attendantd; unless `waitingForReady` is false, returns once it logged "ready:".
        init(_ configuration: String, bus: PrivateBus, waitingForReady: Bool = true) async throws {
            self.folder = try makeTemporaryFolder("attendantctl-daemon")
            self.configuration = self.folder + "/attendant.toml"
            try configuration.write(toFile: self.configuration, atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(
                atPath: self.folder + "/run",
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            self.process = try CommandProcess(
                BuildProducts.attendantd,
                ["--config", self.configuration],
                environment: [
                    "DBUS_SESSION_BUS_ADDRESS": bus.address,
                    "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(self.folder)/no-system-bus",
                    "XDG_RUNTIME_DIR": self.folder + "/run", "XDG_STATE_HOME": self.folder + "/state",
                    "XDG_CONFIG_HOME": self.folder + "/config", "NOTIFY_SOCKET": "", "WATCHDOG_USEC": "",
                ]
            )
            guard waitingForReady else { return }
            let ready = await self.process.waitFor { $0.stderr.contains("ready:") }
            #expect(ready, "attendantd did not get ready:\n\(self.process.stderr)")
        }

        func rewrite(_ configuration: String) throws {
            try configuration.write(toFile: self.configuration, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: self.folder) }
    }

    static func loopback(ring: String = "1h", caller: String = "Ann Lee") -> String {
        """
        [[channel]]
        name = "desk"
        plugin = "loopback"
        [channel.loopback]
        contact-interval = "200ms"
        ring-timeout = "\(ring)"
        caller = "\(caller)"
        """
    }

    /// Runs attendantctl until `condition` holds for its result (bounded); the last result.
    static func until(
        _ arguments: [String],
        bus: PrivateBus,
        _ condition: (CommandResult) -> Bool
    ) async throws -> CommandResult {
        let deadline = ContinuousClock.now + .seconds(60)
        var result = try await attendantctl(arguments, bus: bus.address)
        while !condition(result), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            result = try await attendantctl(arguments, bus: bus.address)
        }
        return result
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// A client that calls the moment the daemon's name appears on the bus gets an answer with the
    /// configured channels (starting or already listening), not `Unknown object` or an empty list: the
    /// daemon exports its objects and knows its channels before it takes the name. Several starts, as a
    /// call lost the race in about one start in five before.
    @Test func aCallAsTheNameAppearsIsAnsweredWithTheConfiguredChannels() async throws {
        for _ in 0..<5 {
            let bus = try await PrivateBus()
            let client = try await ControlClient.connect(.custom(bus.address), requireDaemon: false)
            var running = try await client.daemonRunningChanges().makeAsyncIterator()
            let daemon = try await Daemon(
                Self.loopback() + "\n" + Self.loopback().replacingOccurrences(of: "\"desk\"", with: "\"desk2\""),
                bus: bus,
                waitingForReady: false
            )
            #expect(await running.next() == true, "the daemon never took its name:\n\(daemon.process.stderr)")
            let channels = try await client.channels()
            #expect(channels.map(\.name) == ["desk", "desk2"])
            #expect(channels.allSatisfy { ["starting", "listening"].contains($0.state) }, "\(channels)")
            let status = try await client.status()
            #expect(status.channels == 2, "\(status)")
            await client.connection.close()
        }
    }

    @Test func everyCommandAgainstTheDaemon() async throws {
        let bus = try await PrivateBus()
        let daemon = try await Daemon(Self.loopback(), bus: bus)
        let monitor = try CommandProcess(BuildProducts.attendantctl, ["monitor", "--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(await monitor.waitFor { $0.stderr.contains("Monitoring attendantd") }, "\(monitor.stderr)")

        let status = try await attendantctl(["status"], bus: bus.address)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.hasPrefix("attendantd 0.1.0"))
        #expect(status.stdout.contains("Status:          desk listening\n"))
        #expect(status.stdout.contains("Do not disturb:  off\n"))
        let statusJSON = try #require(try Self.json(try await attendantctl(["status", "--json"], bus: bus.address).stdout) as? [String: Any])
        #expect(statusJSON["pid"] as? Int == Int(daemon.process.process.processIdentifier))
        #expect(statusJSON["channels"] as? Int == 1 && statusJSON["listening"] as? Int == 1)

        let channels = try await attendantctl(["channels"], bus: bus.address)
        #expect(channels.stdout == "NAME  PLUGIN    STATE      TOKEN  RENEWED  DETAIL\ndesk  loopback  listening  -      -\n", "\(channels)")
        let channelsJSON = try await attendantctl(["channels", "--json"], bus: bus.address)
        #expect(
            channelsJSON.stdout
                == #"[{"name":"desk","plugin":"loopback","state":"listening","detail":"","onProbation":false,"tokenExpiresIn":null,"tokenLastRenewal":null,"tokenLastError":null,"tokenFailures":0,"failure":null}]"#
                + "\n"
        )

        // Two ringing contacts: accept one, decline the other.
        let ringing = try await Self.until(["contacts", "--json"], bus: bus) { result in
            ((try? Self.json(result.stdout)) as? [Any])?.count ?? 0 >= 2
        }
        let contacts = try #require(try Self.json(ringing.stdout) as? [[String: Any]])
        #expect(contacts.count >= 2, "\(ringing)")
        #expect(contacts.allSatisfy { $0["channel"] as? String == "desk" && $0["kind"] as? String == "call" && $0["from"] as? String == "Ann Lee" })
        let ids = contacts.compactMap { $0["id"] as? String }
        let first = try #require(ids.last)
        let second = try #require(ids.dropLast().last)

        let accepted = try await attendantctl(["accept", first], bus: bus.address)
        #expect(accepted.status == 0 && accepted.stdout == "Accepted \(first).\n", "\(accepted)")
        let declined = try await attendantctl(["decline", second, "--channel", "desk", "--json"], bus: bus.address)
        #expect(declined.stdout == #"{"ok":true,"action":"decline","contact":"\#(second)","channel":"desk"}"# + "\n", "\(declined)")
        let again = try await attendantctl(["accept", first], bus: bus.address)
        #expect(again.status == 1 && again.stderr.hasPrefix("attendantctl: channel desk: ") && again.stderr.contains("not ringing"), "\(again)")
        let unknown = try await attendantctl(["accept", "no-such-contact"], bus: bus.address)
        #expect(
            unknown.status == 1 && unknown.stderr == "attendantctl: no contact \"no-such-contact\" in the history; see attendantctl contacts\n",
            "\(unknown)"
        )
        let ghost = try await attendantctl(["decline", first, "--channel", "ghost", "--json"], bus: bus.address)
        #expect(ghost.status == 1)
        #expect(ghost.stdout.contains(#""code":"refused","name":"org.attendant.Attendant1.Error.NoSuchChannel""#), "\(ghost)")

        let outcomes = try await Self.until(["contacts", "--limit", "1000", "--json"], bus: bus) { result in
            let records = (try? Self.json(result.stdout)) as? [[String: Any]] ?? []
            let outcome = Dictionary(records.map { ($0["id"] as? String ?? "", $0["outcome"] as? String ?? "open") }) { a, _ in a }
            return outcome[first] == "answered" && outcome[second] == "declined"
        }
        #expect(outcomes.stdout.contains(#""id":"\#(first)""#), "\(outcomes)")
        let table = try await attendantctl(["contacts", "--limit", "1000"], bus: bus.address)
        #expect(table.stdout.split(separator: "\n").contains { $0.contains(first) && $0.contains("answered") && $0.contains("  desk  ") }, "\(table)")

        // Loopback has no token source: the daemon says so.
        let renew = try await attendantctl(["token", "renew", "desk"], bus: bus.address)
        #expect(renew.status == 1 && renew.stderr.contains("has no token source configured"), "\(renew)")

        let dnd = try await attendantctl(["dnd", "on"], bus: bus.address)
        #expect(dnd.stdout == "Do not disturb is now on.\n")
        #expect(try await attendantctl(["dnd", "--json"], bus: bus.address).stdout == #"{"doNotDisturb":true}"# + "\n")
        #expect(try await attendantctl(["dnd", "off"], bus: bus.address).status == 0)

        let reload = try await attendantctl(["reload", "--json"], bus: bus.address)
        #expect(reload.stdout == #"{"ok":true,"action":"reload","status":"desk listening"}"# + "\n", "\(reload)")
        try daemon.rewrite("[[channel]]\nname = \"desk\"\n")
        let broken = try await attendantctl(["reload"], bus: bus.address)
        #expect(broken.status == 1, "\(broken)")
        #expect(broken.stderr.hasPrefix("attendantctl: the configuration was not reloaded; the daemon keeps running the previous one"))

        let health = try await attendantctl(["health"], bus: bus.address)
        #expect(health.status == 0 && health.stdout == "ATTENDANT OK - 1 channel listening | channels=1;;;0 listening=1;;;0\n", "\(health)")

        // What the monitor saw meanwhile: contacts, their ends, do-not-disturb both ways.
        #expect(await monitor.waitFor { $0.stdout.contains(#""DoNotDisturbChanged","doNotDisturb":false"#) }, "\(monitor.stdout)")
        #expect(
            await monitor.waitFor { $0.stdout.contains(#""event":"contact-ended","details":{"ID":"\#(second)","Outcome":"declined"}"#) },
            "\(monitor.stdout)"
        )
        let events = try monitor.stdoutLines.map { try #require(try Self.json($0) as? [String: Any]) }
        #expect(
            events.contains { $0["event"] as? String == "incoming-contact" && ($0["details"] as? [String: Any])?["From"] as? String == "Ann Lee" }
        )
        #expect(events.contains { $0["signal"] as? String == "DoNotDisturbChanged" && $0["doNotDisturb"] as? Bool == true })

        // The daemon stops: the monitor says so; the commands say it is not running.
        daemon.process.signal(SIGTERM)
        #expect(await daemon.process.waitForExit() == 0)
        #expect(await monitor.waitFor { $0.stdout.contains(#""signal":"NameOwnerChanged","running":false"#) }, "\(monitor.stdout)")
        monitor.signal(SIGINT)
        #expect(await monitor.waitForExit() == 0)
        let gone = try await attendantctl(["health"], bus: bus.address)
        #expect(gone.status == 3 && gone.stdout.hasPrefix("ATTENDANT UNKNOWN - attendantd is not running on this session bus"))
        let goneStatus = try await attendantctl(["status"], bus: bus.address)
        #expect(goneStatus.status == 3 && goneStatus.stderr == NotRunningTests.message)
    }

    @Test func aChatThroughTheLoopbackChannel() async throws {
        let bus = try await PrivateBus()
        let configuration = Self.loopback() + "\ncontact-kind = \"chat\"\necho-agent = true\n\n[[channel]]\nname = \"phone\"\nplugin = \"loopback\"\n"
        let daemon = try await Daemon(configuration.replacingOccurrences(of: "contact-interval = \"200ms\"\n", with: ""), bus: bus)
        let desk = ["--channel", "desk"]

        // Out of order: the channel's own message, exit 1, the IllegalState name.
        let early = try await attendantctl(["chat", "connect"] + desk, bus: bus.address)
        #expect(early.status == 1, "\(early)")
        #expect(
            early.stderr == "attendantctl: channel desk: loopback: connect before prepare (the chat is initial); prepare the chat first\n",
            "\(early)"
        )
        let earlyJSON = try await attendantctl(["chat", "threads", "--json"] + desk, bus: bus.address)
        #expect(earlyJSON.status == 1 && earlyJSON.stdout.contains(#""name":"org.attendant.Attendant1.Error.IllegalState""#), "\(earlyJSON)")

        #expect(try await attendantctl(["chat", "prepare"] + desk, bus: bus.address).stdout == "Prepared the chat on desk.\n")
        #expect(try await attendantctl(["chat", "view", "Pricing", "https://example.test/pricing"] + desk, bus: bus.address).status == 0)
        let connect = try await attendantctl(["chat", "connect", "--json"] + desk, bus: bus.address)
        #expect(connect.stdout == #"{"ok":true,"action":"chat-connect","channel":"desk"}"# + "\n", "\(connect)")
        let create = try await attendantctl(["chat", "create", "--field", "name=Billing"] + desk, bus: bus.address)
        #expect(create.stdout == #"Created thread-1 "Billing" on desk: ready."# + "\n", "\(create)")
        let send = try await attendantctl(["chat", "send", "Hello", "there"] + desk, bus: bus.address)
        #expect(send.status == 0 && send.stdout == "Sent on desk.\n", "\(send)")

        // The echo agent answers a second later.
        let answered = try await Self.until(["chat", "threads", "--json"] + desk, bus: bus) { $0.stdout.contains("Echo: Hello there") }
        let threads = try #require(try Self.json(answered.stdout) as? [[String: Any]], "\(answered)")
        #expect(threads.count == 1)
        #expect(threads.first?["id"] as? String == "thread-1" && threads.first?["state"] as? String == "ready")
        let messages = try #require(threads.first?["lastMessages"] as? [[String: Any]])
        #expect(messages.map { $0["text"] as? String } == ["Hello there", "Echo: Hello there"])
        #expect(messages.map { $0["direction"] as? String } == ["to-agent", "from-agent"])
        #expect(messages.last?["sender"] as? String == "Loopback Agent" && (messages.last?["sentAt"] as? Int ?? 0) > 1_700_000_000)

        let open = try await attendantctl(["chat", "open", "thread-1"] + desk, bus: bus.address)
        #expect(open.status == 0 && open.stdout.hasPrefix(#"Thread thread-1 "Billing" on desk: ready"# + "\n"), "\(open)")
        #expect(open.stdout.hasSuffix("  Loopback Agent: Echo: Hello there\n"), "\(open)")
        let missing = try await attendantctl(["chat", "open", "thread-9", "--json"] + desk, bus: bus.address)
        #expect(missing.status == 1 && missing.stdout.contains(#""name":"org.attendant.Attendant1.Error.ServerError""#), "\(missing)")

        let end = try await attendantctl(["chat", "end", "--json"] + desk, bus: bus.address)
        #expect(end.stdout == #"{"ok":true,"action":"chat-end","channel":"desk","thread":null}"# + "\n", "\(end)")
        let closed = try await attendantctl(["chat", "threads"] + desk, bus: bus.address)
        #expect(closed.stdout.split(separator: "\n").last?.hasPrefix("thread-1  Billing  closed  2 ") == true, "\(closed)")
        let late = try await attendantctl(["chat", "send", "--thread", "thread-1", "more"] + desk, bus: bus.address)
        #expect(late.status == 1 && late.stderr.contains("which is closed"), "\(late)")

        // A channel that does not chat; a channel that does not exist; two channels and no --channel.
        let phone = try await attendantctl(["chat", "prepare", "--channel", "phone", "--json"], bus: bus.address)
        #expect(phone.status == 1, "\(phone)")
        #expect(phone.stdout.contains(#""name":"org.attendant.Attendant1.Error.Unsupported""#), "\(phone)")
        #expect(phone.stderr == "attendantctl: channel phone: loopback: no prepare requests here; chat requests need contact-kind = \"chat\"\n")
        let ghost = try await attendantctl(["chat", "prepare", "--channel", "ghost"], bus: bus.address)
        #expect(ghost.status == 1 && ghost.stderr.contains(#"no running channel "ghost"; running: "#), "\(ghost)")
        let which = try await attendantctl(["chat", "threads"], bus: bus.address)
        #expect(which.status == 64 && which.stderr.contains("name the chat channel with --channel"), "\(which)")

        daemon.process.signal(SIGTERM)
        #expect(await daemon.process.waitForExit() == 0)
    }

    static func failing(_ name: String, failures: Int, _ failure: String) -> String {
        """
        [[channel]]
        name = "\(name)"
        plugin = "loopback"
        [channel.loopback]
        listen-failures = \(failures)
        listen-failure = "\(failure)"

        """
    }

    @Test func healthWarnsWhileAChannelRecoversAndMonitorWaitsForTheDaemon() async throws {
        let bus = try await PrivateBus()
        let monitor = try CommandProcess(
            BuildProducts.attendantctl,
            ["monitor", "--json", "--wait"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        )
        #expect(await monitor.waitFor { $0.stderr.contains("waiting for it to start") }, "\(monitor.stderr)")
        let daemon = try await Daemon(Self.failing("desk", failures: 1_000_000, "transient"), bus: bus)

        let warning = try await Self.until(["health"], bus: bus) { $0.status == 1 }
        #expect(warning.status == 1, "\(warning)")
        #expect(warning.stdout.hasPrefix("ATTENDANT WARNING - desk recovering: loopback: listen attempt "), "\(warning)")
        #expect(warning.stdout.hasSuffix("fails on purpose (listen-failures = 1000000) | channels=1;;;0 listening=0;;;0\n"), "\(warning)")
        let channels = try await attendantctl(["channels"], bus: bus.address)
        #expect(
            channels.stdout.split(separator: "\n").last?.hasPrefix("desk  loopback  recovering  -      -        loopback: listen attempt ") == true,
            "\(channels)"
        )

        // The monitor was there before the daemon: it saw it start and the channel recover.
        #expect(
            await monitor.waitFor { $0.stdout.contains(#""signal":"ChannelStateChanged","channel":"desk","state":"recovering""#) },
            "\(monitor.stdout)"
        )
        #expect(monitor.stdout.contains(#""signal":"NameOwnerChanged","running":true"#))
        daemon.process.signal(SIGTERM)
        #expect(await daemon.process.waitForExit() == 0)
        #expect(await monitor.waitFor { $0.stdout.contains(#""signal":"NameOwnerChanged","running":false"#) }, "\(monitor.stdout)")
        #expect(monitor.process.isRunning, "a monitor that waits stays when the daemon stops")
        monitor.signal(SIGINT)
        #expect(await monitor.waitForExit() == 0)
    }

    @Test func healthIsCriticalWhileSignInIsNeeded() async throws {
        let bus = try await PrivateBus()
        // desk fails twice and then listens; ghost's one authentication failure needs a new token,
        // which a channel without a token source cannot get: sign-in needed.
        let daemon = try await Daemon(Self.failing("desk", failures: 2, "transient") + Self.failing("ghost", failures: 1, "authentication"), bus: bus)
        let expected = """
            ATTENDANT CRITICAL - ghost failed: sign-in needed: channel "ghost" has no token source configured, so no new \
            token can be had | channels=2;;;0 listening=1;;;0

            """
        let critical = try await Self.until(["health"], bus: bus) { $0.stdout == expected }
        #expect(critical.status == 2 && critical.stdout == expected, "\(critical)")
        let json = try #require(try Self.json(try await attendantctl(["health", "--json"], bus: bus.address).stdout) as? [String: Any])
        #expect(json["status"] as? String == "CRITICAL" && json["exitCode"] as? Int == 2)
        let problems = try #require(json["problems"] as? [[String: Any]])
        #expect(problems.count == 1 && problems.first?["channel"] as? String == "ghost")
        daemon.process.signal(SIGTERM)
        #expect(await daemon.process.waitForExit() == 0)
    }

    @Test func healthIsCriticalWhenAChannelCannotListen() async throws {
        let bus = try await PrivateBus()
        let daemon = try await Daemon(Self.loopback() + "\n\n[[channel]]\nname = \"ghost\"\nplugin = \"nosuch\"\n", bus: bus)
        let health = try await attendantctl(["health"], bus: bus.address)
        #expect(health.status == 2, "\(health)")
        #expect(health.stdout.hasPrefix("ATTENDANT CRITICAL - ghost failed: plugin \"nosuch\" not found"), "\(health)")
        #expect(health.stdout.hasSuffix(" | channels=2;;;0 listening=1;;;0\n"))
        let channels = try await attendantctl(["channels"], bus: bus.address)
        #expect(
            channels.stdout.split(separator: "\n").contains {
                $0.hasPrefix("ghost  nosuch    failed     -      -        plugin \"nosuch\" not found")
            },
            "\(channels)"
        )
        daemon.process.signal(SIGTERM)
        #expect(await daemon.process.waitForExit() == 0)
    }
}
