import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The Genesys seed through the real `attendantd` with the GMSChat plugin against the real `attendant-sim`
/// GMS server, with the real desktop: dunst shows what alerts, python-dbusmock's logind sends the machine
/// to sleep (see DesktopSession), and the daemon's `ChannelEvent` signals show what the channel reported.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GMSChatDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    /// A gms-chat channel named "chat" for the simulator's GMS server, starting its chat on its own.
    static func configuration(_ simulator: Simulator, apiVersion: Int = 2, transport: String = "websocket", extra: String = "") -> String {
        """
        [[channel]]
        name = "chat"
        plugin = "gms-chat"
        chat-alert-lines = 20
        \(extra)

        [channel.gms-chat]
        url = "\(simulator.announcement["gms_base"] as? String ?? "")"
        api-version = \(apiVersion)
        service = "\(apiVersion == 2 ? simulator.announcement["gms_service"] as? String ?? "" : "request-chat")"
        transport = "\(transport)"
        nickname = "Grace"
        auto-start = true
        """
    }

    /// The daemon's `message-received` signals for channel "chat": (text, direction), in order.
    static func messages(_ desktop: DesktopSession) -> [(text: String, direction: String)] {
        desktop.sessionBus.signals("ChannelEvent").compactMap { signal in
            guard signal.arguments.count == 3, signal.arguments[0].string == "chat", signal.arguments[1].string == "message-received" else {
                return nil
            }
            let details = signal.arguments[2]
            return (details["Text"]?["data"]?.string ?? "", details["Direction"]?["data"]?.string ?? "")
        }
    }

    static func agentTexts(_ desktop: DesktopSession) -> [String] {
        self.messages(desktop).filter { $0.direction == "from-agent" }.map(\.text)
    }

    static func gmsStatus(_ simulator: Simulator) async throws -> [String: Any] {
        try await simulator.controlJSON("GET", "/control/gms/status")
    }

    static func gmsChats(_ simulator: Simulator) async throws -> [[String: Any]] {
        try await simulator.controlJSON("GET", "/control/gms/chats")["chats"] as? [[String: Any]] ?? []
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// The daemon on the desktop with the chat channel, once the chat started and the agent greeted.
    static func greetedDaemon(
        _ simulator: Simulator,
        desktop: DesktopSession,
        scratch: Scratch,
        apiVersion: Int,
        transport: String
    ) async throws -> DaemonProcess {
        let config = try scratch.write("attendant.toml", Self.configuration(simulator, apiVersion: apiVersion, transport: transport))
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        try await eventually("the agent's greeting") { Self.agentTexts(desktop).contains("Hello, this is Ada. How can I help you?") }
        return daemon
    }

    func chatStatus(_ desktop: DesktopSession) async throws -> [String: String] {
        let (_, output) = try await run(TokenDaemonTests.attendantctl, ["chat", "status", "--json"], environment: desktop.toolEnvironment)
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
    }

    // MARK: Stopping

    /// Every stop with an active chat tells GMS, as every sleep does: `/meta/disconnect` with the chat's
    /// position before the daemon exits, over WebSocket as over long-polling. The WebSocket used to close
    /// the moment the daemon's graceful shutdown began (swift-websocket closes its connections on the
    /// graceful shutdown of the task that opened them), racing the disconnect: it got out in about 1 stop
    /// of 10. Several stops, each on a new daemon that resumes the same chat.
    @Test(arguments: ["websocket", "long-polling"])
    func everyStopWithAnActiveChatSendsTheDisconnect(transport: String) async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write("attendant.toml", Self.configuration(simulator, transport: transport))
        for stop in 1...6 {
            let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
            try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
            try await eventually("stop \(stop): the chat active over \(transport)") {
                let status = try await self.chatStatus(desktop)
                return status["chat"] == "active" && status["transport"] == transport
            }
            let before = (try await Self.gmsStatus(simulator)["disconnects"] as? [[String: Any]] ?? []).count
            await CXoneChatDaemonTests.stop(daemon)
            let disconnects = try await Self.gmsStatus(simulator)["disconnects"] as? [[String: Any]] ?? []
            #expect(
                disconnects.count == before + 1,
                "stop \(stop): \(disconnects.count - before) disconnects; the daemon's log:\n\(daemon.stderr.suffix(3000))"
            )
            #expect(disconnects.last?["transcript_position"] as? String != nil, "\(disconnects)")
        }
    }

    // MARK: The seed, step by step

    /// Sleep: `/meta/disconnect` with the highest position, inside the delay lock; the server flags the
    /// customer away and tells the agent. 20 agent messages while asleep. Resume: a new session replays
    /// exactly those 20, once and in order, as one alert updated in place, titled as the seed's push.
    @Test(arguments: [(2, "websocket"), (1, "long-polling")])
    func sleepWithTwentyAgentMessagesThenResumeShowsExactlyThoseOnceInOrder(apiVersion: Int, transport: String) async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.greetedDaemon(simulator, desktop: desktop, scratch: scratch, apiVersion: apiVersion, transport: transport)
        // The greeting's alert: the seed's title, the last transcript lines as the body.
        try await eventually("the greeting in dunst") { desktop.printed.contains { $0.summary == "New message from Agent" } }
        let position = try await #require(try self.chatStatus(desktop)["transcript-position"])

        // Sleep: the disconnect carries the position, as a string; the delay lock is released after it.
        try await desktop.prepareForSleep(true)
        try await eventually("the background disconnect") {
            await (try Self.gmsStatus(simulator)["disconnects"] as? [[String: Any]])?.isEmpty == false
        }
        let disconnect = try await #require((try Self.gmsStatus(simulator)["disconnects"] as? [[String: Any]])?.last)
        #expect(disconnect["transcript_position"] as? String == position, "\(disconnect)")
        try await eventually("the delay lock released") { try await desktop.inhibitors().isEmpty }
        let chat = try await #require(try Self.gmsChats(simulator).last)
        #expect(chat["online"] as? Bool == false)
        #expect((chat["agent_notices"] as? [String] ?? []).contains("customer is not online"))
        // Background is not a loss, but the chat does not listen: the channel says `background`.
        let (_, channels) = try await run(TokenDaemonTests.attendantctl, ["channels", "--json"], environment: desktop.toolEnvironment)
        #expect(channels.contains(#""state":"background""#), "\(channels)")

        let away = (1...20).map { "While you slept \($0)" }
        for text in away { _ = try await simulator.control("POST", "/control/gms/agent?text=\(Self.escaped(text))") }
        try await Task.sleep(for: .milliseconds(500))
        #expect(!Self.agentTexts(desktop).contains("While you slept 1"), "nothing arrives while asleep")
        let callsBefore = desktop.notifyCalls.count

        // Resume: a new session, and everything after the position, once and in order.
        try await desktop.prepareForSleep(false)
        try await eventually("the 20 messages") { Self.agentTexts(desktop).filter { $0.hasPrefix("While you slept") }.count >= 20 }
        try await Task.sleep(for: .seconds(1))
        #expect(Self.agentTexts(desktop).filter { $0.hasPrefix("While you slept") } == away)
        await #expect(try Self.gmsChats(simulator).last?["online"] as? Bool == true)
        // One alert for the burst, updated in place, whose body ends with the last lines of the transcript.
        try await eventually("the burst in dunst") { desktop.printed.contains { $0.body.contains("While you slept 20") } }
        let burst = desktop.notifyCalls.dropFirst(callsBefore).filter { $0.summary == "New message from Agent" }
        #expect(!burst.isEmpty && burst.count <= 3, "one alert per burst (shown, then updated): \(burst.count) Notify calls")
        #expect(Set(burst.map(\.replacesID)).subtracting([0]).count <= 1, "updated in place")
        let last = try #require(burst.last)
        // chat-alert-lines = 20: exactly the 20 replayed lines, the greeting before them gone.
        #expect(last.body.components(separatedBy: "\n") == away.map { "Ada Lovelace: \($0)" }, "\(last.body)")

        // The chat's keys are only in the 0600 secrets file: not in the state database, a log line, the
        // channel's status or a D-Bus signal.
        let secureKey = try #require(chat["secure_key"] as? String)
        let chatID = try #require(chat["id"] as? String)
        let secrets = try String(contentsOfFile: scratch.path + "/state/attendant/secrets.json", encoding: .utf8)
        #expect(secrets.contains(secureKey))
        var mode = stat()
        #expect(stat(scratch.path + "/state/attendant/secrets.json", &mode) == 0 && mode.st_mode & 0o777 == 0o600)
        let (_, status) = try await run(TokenDaemonTests.attendantctl, ["chat", "status", "--json"], environment: desktop.toolEnvironment)
        await CXoneChatDaemonTests.stop(daemon)
        var outputs = [daemon.stderr, status, "\(desktop.sessionBus.signals("ChannelEvent").map(\.raw))"]
        for name in ["state.sqlite", "state.sqlite-wal"] {
            if let data = FileManager.default.contents(atPath: scratch.path + "/state/attendant/" + name) {
                outputs.append(String(decoding: data, as: UTF8.self))
            }
        }
        for output in outputs {
            #expect(!output.contains(secureKey) && !output.contains(chatID), "a key of the chat leaked")
        }
    }

    /// The filter (default: all but typing) and the title; the customer's own lines are not alerts.
    @Test func typingNoticesDoNotAlertAndTheCustomersOwnLinesAreNotAlerts() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2", "--gms-auto-reply"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.greetedDaemon(simulator, desktop: desktop, scratch: scratch, apiVersion: 2, transport: "websocket")
        // The agent joining and greeting is one burst: shown, then updated once the coalescing window ends.
        try await eventually("the greeting in dunst") { desktop.notifyCalls.contains { $0.body.contains("Hello, this is Ada") } }
        try await Task.sleep(for: .milliseconds(800))
        let calls = desktop.notifyCalls.count
        _ = try await simulator.control("POST", "/control/gms/typing?state=started")
        try await eventually("the typing notice reported") {
            Self.messages(desktop).contains { $0.direction == "notice" }
        }
        try await Task.sleep(for: .milliseconds(800))
        #expect(desktop.notifyCalls.count == calls, "a typing notice raises no alert")
        let (status, output) = try await run(
            TokenDaemonTests.attendantctl,
            ["chat", "send", "Hello <b>Ada</b>"],
            environment: desktop.toolEnvironment
        )
        #expect(status == 0, "\(output)")
        try await eventually("the agent's reply in dunst") {
            desktop.printed.contains { $0.body.contains("Hello <b>Ada</b>") || $0.body.contains("Hello &lt;b&gt;Ada") }
        }
        let shown = try #require(desktop.notifyCalls.last { $0.summary == "New message from Agent" })
        let text = try await desktop.shownText(shown.body)
        #expect(!text.contains("Grace:"), "the customer's own line is not in the alert: \(text)")
        #expect(!daemon.stderr.contains("Hello <b>Ada</b>"), "message text stays out of the log")

        // The customer's other v2 operations, through attendantctl.
        func ctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await run(TokenDaemonTests.attendantctl, ["chat"] + arguments, environment: desktop.toolEnvironment)
        }
        await #expect(try ctl(["nickname", "Amazing Grace"]) == (0, "The agent on chat now sees Amazing Grace.\n"))
        await #expect(
            try ctl(["push-url", "https://shop.example/orders/7", "--json"]) == (
                0, #"{"ok":true,"action":"chat-push-url","channel":"chat","url":"https://shop.example/orders/7"}"# + "\n"
            )
        )
        await #expect(try ctl(["notice", "order 7"]).0 == 0)
        try await eventually("the three operations at GMS") {
            let rows = await (try Self.gmsChats(simulator).last?["transcript"] as? [[String: Any]] ?? []).filter {
                $0["party"] as? String == "client"
            }
            return rows.contains { $0["type"] as? String == "NicknameUpdated" && $0["text"] as? String == "Amazing Grace" }
                && rows.contains { $0["type"] as? String == "PushUrl" && $0["text"] as? String == "https://shop.example/orders/7" }
                && rows.contains { $0["type"] as? String == "CustomNotice" && $0["text"] as? String == "order 7" }
        }
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// Without `auto-start` the daemon only listens; `attendantctl chat connect` starts the chat and
    /// `chat end` ends it, each shown in `chat status`.
    @Test func theUserStartsAndEndsTheChatWithAttendantctl() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let config = try scratch.write(
            "attendant.toml",
            Self.configuration(simulator).replacingOccurrences(of: "auto-start = true", with: "auto-start = false")
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: chat listening"), "\(daemon.stderr)")
        await #expect(try self.chatStatus(desktop)["chat"] == "none")
        await #expect(try Self.gmsChats(simulator).isEmpty)
        let (status, output) = try await run(TokenDaemonTests.attendantctl, ["chat", "connect"], environment: desktop.toolEnvironment)
        #expect(status == 0, "\(output)")
        try await eventually("the agent's greeting") { Self.agentTexts(desktop).contains("Hello, this is Ada. How can I help you?") }
        let running = try await self.chatStatus(desktop)
        #expect(running["chat"] == "active" && running["connected"] == "yes" && running["transport"] == "websocket", "\(running)")
        #expect(running["client-id-age"] != nil && running["advice"]?.contains("reconnect=retry") == true, "\(running)")
        #expect(try await run(TokenDaemonTests.attendantctl, ["chat", "end"], environment: desktop.toolEnvironment).0 == 0)
        try await eventually("the chat ended") { try await self.chatStatus(desktop)["chat"] == "ended" }
        await #expect(try Self.gmsChats(simulator).last?["ended"] as? Bool == true)
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Bad input

    /// A batch that is not JSON, one that is not Bayeux, a GMS event of the wrong shape, an event on a
    /// channel the chat does not use, and a batch over the size limit: each is named in the log (size and
    /// problem, never content), and the chat goes on.
    @Test(arguments: ["websocket", "long-polling"])
    func badInputIsNamedWithoutItsContentAndTheChatGoesOn(transport: String) async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.greetedDaemon(simulator, desktop: desktop, scratch: scratch, apiVersion: 2, transport: transport)
        let service = simulator.announcement["gms_service"] as? String ?? ""
        func push(_ body: String) async throws {
            let file = try scratch.write("batch", body)
            // Each goes to a held long-poll or the socket; wait until the client has one again.
            try await eventually("a client to push to") {
                let (status, output) = try await run(
                    "/usr/bin/curl",
                    ["-s", "--max-time", "20", "-X", "POST", "--data-binary", "@\(file)", "http://127.0.0.1:\(simulator.httpPort)/control/gms/push"]
                )
                return status == 0 && output.contains(#""clients":1"#)
            }
        }
        try await push("{not json SECRET-1")
        try await push(#"[{"data":{"text":"SECRET-2"}}]"#)
        try await push(#"[{"channel":"/service/chatV2/\#(service)","data":{"messages":"SECRET-3"}}]"#)
        try await push(#"[{"channel":"/chat/elsewhere","data":{"text":"SECRET-4"}}]"#)
        try await push("[{\"channel\":\"/chat/elsewhere\",\"data\":\"" + String(repeating: "S", count: 5_000_000) + "\"}]")
        try await eventually("all five named") {
            let log = daemon.stderr
            return log.contains("bayeux: ignored a batch from") && log.contains("not JSON")
                && log.contains("field \"channel\" is missing")
                && log.contains("ignored an event on /service/chatV2/\(service)") && log.contains("field \"messages\" is a string, expected an array")
                && log.contains("ignored an event on /chat/elsewhere, which this chat does not use")
                && (log.contains("answered with more than") || log.contains("larger than the limit"))
        }
        #expect(!daemon.stderr.contains("SECRET"), "content stays out of the log")
        // The chat goes on.
        _ = try await simulator.control("POST", "/control/gms/agent?text=Still%20here")
        try await eventually("the agent's next message") { Self.agentTexts(desktop).contains("Still here") }
        let (_, channels) = try await run(TokenDaemonTests.attendantctl, ["channels", "--json"], environment: desktop.toolEnvironment)
        #expect(channels.contains(#""state":"listening""#), "\(channels)")
        await CXoneChatDaemonTests.stop(daemon)
    }

    // MARK: Resilience

    /// The held long-poll cut, then GMS restarted (it forgets the client: `402::Unknown client`): the
    /// channel connects again at once, handshakes again, asks for the events after its position, and
    /// nothing is lost or doubled.
    @Test(arguments: ["long-polling", "websocket"])
    func aCutConnectionOrARestartedServerLosesAndDoublesNothing(transport: String) async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.greetedDaemon(simulator, desktop: desktop, scratch: scratch, apiVersion: 2, transport: transport)
        var expected: [String] = []
        for (round, fault) in ["drop", "restart", "drop", "restart"].enumerated() {
            _ = try await simulator.control("POST", "/control/gms/fault?kind=\(fault)")
            let text = "After \(fault) \(round)"
            expected.append(text)
            _ = try await simulator.control("POST", "/control/gms/agent?text=\(Self.escaped(text))")
            try await eventually(text) { Self.agentTexts(desktop).contains(text) }
        }
        try await Task.sleep(for: .seconds(1))
        #expect(Self.agentTexts(desktop).filter { $0.hasPrefix("After ") } == expected)
        await #expect(try Self.gmsStatus(simulator)["unknown_client_replies"] as? Int ?? 0 >= 1)
        try await eventually("connected") { try await self.chatStatus(desktop)["connected"] == "yes" }
        #expect(daemon.stderr.contains("the connection to GMS at"), "\(daemon.stderr)")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
