import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// DESIGN.md §7: token values never reach a log, an error message, a status or the health report. The
/// keeper and the supervisor run through success and every failure path with a recording log handler,
/// and every text they produced is searched for every token string (and for each JWT's signature).
@Suite(.timeLimit(.minutes(2))) struct TokenSecrecyTests {
    final class Texts: Sendable {
        let records = LogRecords()
        private let collected = Mutex<[String]>([])
        func add(_ text: String?) { if let text { self.collected.withLock { $0.append(text) } } }
        var all: [String] { self.collected.withLock { $0 } + [self.records.text] }

        var logger: Logger {
            let records = self.records
            var logger = Logger(label: "attendant.test") { _ in RecordingLogHandler(records: records) }
            logger.logLevel = .trace
            logger[metadataKey: "channel"] = "desk"
            return logger
        }
    }

    static let epoch = 1_800_000_000.0

    /// Tokens whose text must never show, each with a part that is unmistakable.
    static let valid = TestJWT.make(
        claims: #"{"iat":1800000000,"exp":1800000900,"scope":"scope:client:incoming?clientName=a"}"#,
        signature: "VALIDSIGNATUREaaaaaaaaaaaa"
    )
    static let renewed = TestJWT.make(
        claims: #"{"iat":1800000600,"exp":1800001500,"scope":"scope:client:incoming?clientName=a"}"#,
        signature: "RENEWEDSIGNATUREbbbbbbbbbb"
    )
    static let expired = TestJWT.make(claims: #"{"exp":1700000000}"#, signature: "EXPIREDSIGNATUREcccccccccc")
    static let outgoing = TestJWT.make(
        claims: #"{"exp":1900000000,"scope":"scope:client:outgoing?appSid=AP1"}"#,
        signature: "OUTGOINGSIGNATUREddddddd"
    )
    static let garbage = TestJWT.base64url(#"{"alg":"HS256"}"#) + ".GARBAGEPAYLOAD!!!eeeeeee.GARBAGESIGNATUREeeeee"
    static let opaque = "OPAQUESECRETffffffffffffffff"
    static let secrets = [
        valid, renewed, expired, outgoing, garbage, opaque, "VALIDSIGNATURE", "RENEWEDSIGNATURE", "EXPIREDSIGNATURE", "OUTGOINGSIGNATURE",
        "GARBAGEPAYLOAD", "GARBAGESIGNATURE",
    ]

    func expectNoSecret(in texts: Texts) {
        for text in texts.all {
            for secret in Self.secrets {
                #expect(!text.contains(secret), "a token string leaked: \(text)")
            }
        }
    }

    func manager(_ source: any TokenSource, clock: ManualClock, texts: Texts, timeout: Duration = .seconds(10)) -> TokenManager {
        var settings = TokenSettings(source: .command(["/usr/local/bin/scripted"]))
        settings.timeout = timeout
        return TokenManager(
            channelName: "desk",
            settings: settings,
            source: source,
            clock: clock,
            wallClock: { clock.unixTime() },
            logger: texts.logger,
            random: SeededRandom()
        )
    }

    @Test func throughTheSupervisorSuccessRenewalAndEveryRefusal() async {
        let texts = Texts()
        let clock = ManualClock(epoch: UnixTime(secondsSince1970: Self.epoch))
        let source = ScriptedTokenSource([.token(Self.valid), .token(Self.renewed)])
        let keeper = self.manager(source, clock: clock, texts: texts)
        let host = InMemoryChannelHost(channelName: "desk", clock: clock)
        let channel = ScriptedChannel(host: host)
        let statuses = StatusLog()
        let supervisor = ChannelSupervisor(
            name: "desk",
            plugin: "scripted",
            channel: channel,
            tokens: keeper,
            clock: clock,
            logger: texts.logger,
            configuration: ChannelSupervisor.Configuration(),
            onStatus: { statuses.append($0) }
        )
        let run = Task { await supervisor.run() }
        // The keeper's first token reaches the channel on its own path, beside the listen; the keep-alive
        // can see how long that token has left only once the keeper holds it.
        await channel.waitForCalls(atLeast: 2)
        await clock.waitForSleeper(until: .init(offset: .seconds(600)))
        clock.advance(by: .seconds(600))  // keep-alive: 300 s left, renewed first
        await channel.waitForCalls(atLeast: 4)
        // The server refuses; every renewal after that gives something unusable.
        source.script(.token(Self.expired), .token(Self.outgoing), .token(Self.garbage), .token("Bearer " + Self.opaque))
        supervisor.channelStoppedListening(ChannelError(.authentication, "401 Unauthorized"))
        while supervisor.status.state != .failed && !Task.isCancelled { await Task.yield() }
        texts.add(supervisor.status.detail)
        for _ in 0..<3 {
            do {
                try await supervisor.renewToken()
            } catch {
                texts.add("\(error)")
            }
            texts.add(await supervisor.tokenHealth()?.lastRenewalError)
        }
        for status in statuses.all { texts.add(status.detail) }
        texts.add("\(await keeper.current() as Any)")
        supervisor.stop()
        await run.value
        #expect(texts.records.all.count > 5)
        #expect(texts.all.contains { $0.contains("expired at") } && texts.all.contains { $0.contains("no incoming capability") }, "\(texts.all)")
        #expect(texts.all.contains { $0.contains("looks like a JWT") } && texts.all.contains { $0.contains("gave text with spaces") })
        self.expectNoSecret(in: texts)
    }

    @Test func commandsURLsAndFilesThatPrintTheTokenAndFail() async throws {
        let texts = Texts()
        let clock = ManualClock(epoch: UnixTime(secondsSince1970: Self.epoch))
        let folder = TemporaryFolder()
        let server = try await LoopbackHTTPServer.start { request in
            switch request.uri {
            case "/error": .init(status: 500, body: Self.opaque)
            case "/json": .init(contentType: "application/json", body: #"{"access_token":"\#(Self.opaque)"}"#)
            default: .init(body: #"{"token":"\#(Self.opaque)"}"#)
            }
        }
        defer { Task { try? await server.stop() } }
        folder.write("token", Self.opaque + "\nsecond line\n")
        let sources: [TokenSettings.Source] = [
            .command(["/bin/sh", "-c", "echo \(Self.opaque); echo 'failed' >&2; exit 1"]),
            .command(["/bin/sh", "-c", "echo Bearer \(Self.opaque)"]),
            .command(["/bin/sh", "-c", "echo \(Self.opaque) >&2; echo \(Self.expired)"]),
            .command(["/bin/sh", "-c", "echo \(Self.opaque); touch \(folder.path)/hanging; exec sleep 1000"]),
            .url(server.url + "/error", method: .get, field: nil),
            .url(server.url + "/json", method: .post, field: "token"),
            .url(server.url + "/plain", method: .get, field: nil),
            .file(folder.path + "/token"),
        ]
        for settings in sources {
            let keeper = self.manager(settings.makeSource(channel: "desk", environment: [:]), clock: clock, texts: texts, timeout: .seconds(5))
            let renewal = Task { try await keeper.renew() }
            if case .command(let arguments) = settings, arguments.last?.hasSuffix("exec sleep 1000") == true {
                // The hanging command: let its time limit pass on the manual clock.
                while folder.read("hanging") == nil { await Task.yield() }
                await clock.waitForSleepers(atLeast: 1)
                clock.advance(by: .seconds(5))
            }
            do {
                let token = try await renewal.value
                Issue.record("\(settings) gave a token: \(token)")
            } catch {
                texts.add("\(error)")
            }
            texts.add(await keeper.health()?.lastRenewalError)
        }
        let messages = texts.all.joined(separator: "\n")
        #expect(messages.contains("exited with status 1: failed"))
        #expect(messages.contains("gave text with spaces"))
        #expect(messages.contains("expired at"))
        #expect(messages.contains("did not finish within 5 s and was killed"))
        #expect(messages.contains("answered HTTP 500 Internal Server Error"))
        #expect(messages.contains("answered with JSON; set token-url-field"))
        #expect(messages.contains("without a string field \"token\""))
        #expect(messages.contains("gave text with several lines"))
        self.expectNoSecret(in: texts)
    }
}
