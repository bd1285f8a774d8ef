import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

/// ``KarteCommand``: what a request asks, checked before the session sees it; and the session's
/// answers to the commands that are more than a tracking step (a click, a list).
@Suite struct KarteCommandTests {
    typealias Action = KarteSession.Action

    static func command(_ name: String, _ arguments: [String: String] = [:]) throws(ChannelError) -> KarteCommand {
        try KarteCommand(.custom(command: name, arguments: arguments))
    }

    @Test func requestsAreReadWithTheirValues() throws {
        #expect(
            try Self.command("actions-view", ["name": "cart", "title": "Cart", "values": #"{"n":2}"#])
                == .view(name: "cart", title: "Cart", values: ["n": .number(2)])
        )
        #expect(try Self.command("actions-track", ["event": "buy"]) == .track(KarteEvent(name: "buy")))
        #expect(try Self.command("actions-identify", ["user_id": "u1"]) == .identify(userID: "u1", values: [:]))
        #expect(try Self.command("actions-attribute", ["values": #"{"plan":"gold"}"#]) == .attribute(["plan": .string("gold")]))
        #expect(try Self.command("actions-variables", ["fetch": "true"]) == .variables(fetch: true))
        #expect(try Self.command("actions-variables") == .variables(fetch: false))
        #expect(try Self.command("actions-click") == .click(actionID: nil, link: .index("0")))
        #expect(
            try Self.command("link", ["action": "a1", "url": "https://example.com/y", "link": "1"])
                == .click(actionID: "a1", link: .url("https://example.com/y"))
        )
        #expect(try Self.command("actions-click", ["action": "", "link": "2"]) == .click(actionID: nil, link: .index("2")), "an empty id is no id")
        #expect(try KarteCommand(.dismiss(actionID: nil)) == .dismiss(actionID: nil))
        #expect(try KarteCommand(.suppress) == .suppress)
    }

    @Test func wrongInputSaysWhatIsWrong() {
        #expect(throws: ChannelError(.invalidArgument, "a view needs a name")) { try Self.command("actions-view", ["name": ""]) }
        #expect(throws: ChannelError(.invalidArgument, #""a.b" is not an event name: no '.' and no leading '$'"#)) {
            try Self.command("actions-track", ["event": "a.b"])
        }
        #expect(throws: ChannelError(.invalidArgument, #""$x" is not an event name: no '.' and no leading '$'"#)) {
            try Self.command("actions-track", ["event": "$x"])
        }
        #expect(throws: ChannelError(.invalidArgument, "identify needs a user id")) { try Self.command("actions-identify") }
        #expect(throws: ChannelError(.invalidArgument, "attribute needs at least one value")) {
            try Self.command("actions-attribute", ["values": "{}"])
        }
        #expect(throws: ChannelError(.invalidArgument, "the values must be a JSON object, not an array")) {
            try Self.command("actions-track", ["event": "e", "values": "[1]"])
        }
        let notJSON = #expect(throws: ChannelError.self) { try Self.command("actions-track", ["event": "e", "values": "{"]) }
        #expect(notJSON?.code == .invalidArgument && notJSON?.message.hasPrefix("the values are not JSON: ") == true)
        #expect(throws: ChannelError(.unsupported, #"karte-actions has no request "actions-fly"; see attendantctl actions --help"#)) {
            try Self.command("actions-fly")
        }
        #expect(throws: ChannelError(.unsupported, "karte-actions does not handle send-message requests; see attendantctl actions --help")) {
            try KarteCommand(.sendMessage(threadID: nil, text: "hi"))
        }
    }

    /// A session showing the fixture's action a1, with its two links (`_blank`, then the default target).
    static func showing() throws -> KarteSession {
        var (session, _) = KarteSessionTests.started()
        let request = try #require(KarteSessionTests.sent(KarteSessionTests.flush(&session)).first)
        _ = session.completed(request, .answer(status: 200, body: Array(Fixtures.responseText.utf8)), now: t0)
        try #require(session.actions.shown.map(\.message.actionID) == ["a1"])
        return session
    }

    /// The events a step tracks, by name (what it keeps in the store until answered).
    static func tracked(_ actions: [Action]) -> [String] {
        KarteSessionTests.stored(actions).filter { $0.key.hasPrefix(KarteSession.StoreKey.pendingEvent) }.compactMap { _, value in
            value.flatMap { try? JSONValue.parse(Array($0.utf8)) }?["event_name"]?.stringValue
        }
    }

    @Test func aClickOpensTheLinkThenTracksResetsAndAnswersHowItWent() throws {
        var session = try Self.showing()
        let clicked = try session.perform(.click(actionID: nil, link: .index("1")), 4, now: t0)
        #expect(KarteSessionTests.replies(clicked).isEmpty, "the caller waits for the host to open the link")
        let opens = clicked.compactMap { if case .work(.open(let id, let url)) = $0 { "\(id) \(url)" } else { nil } }
        #expect(opens == ["4 https://example.com/y"])
        #expect(Self.tracked(clicked).isEmpty && session.actions.shown.count == 1, "nothing happens before the host's policy let the link through")

        let answered = session.opened(4, .opened(by: "xdg-open"), now: t0)
        #expect(Self.tracked(answered) == ["message_click"])
        #expect(answered.contains { if case .emit(.actionLifecycle(let step)) = $0 { step.phase == .didDisappear } else { false } })
        #expect(session.actions.shown.isEmpty, "a link that is not _blank resets")
        #expect(
            KarteSessionTests.replies(answered)[4]
                == .fields([
                    "action": "a1", "url": "https://example.com/y", "target": "_self", "opened": "opened", "detail": "xdg-open", "reset": "true",
                ])
        )
        #expect(session.opened(4, .opened(by: "xdg-open"), now: t0).isEmpty, "answered once")
    }

    /// A link the `[links]` policy refuses (a `javascript:` URL) is not a click: no `message_click`, the
    /// action stays shown, and the caller hears why.
    @Test func aLinkThePolicyRefusesIsNotAClick() throws {
        var session = try Self.showing()
        _ = try session.perform(.click(actionID: nil, link: .index("1")), 4, now: t0)
        let refused = session.opened(4, .refused("the scheme \"javascript\" is not allowed"), now: t0)
        #expect(Self.tracked(refused).isEmpty, "no message_click")
        #expect(!refused.contains { if case .emit(.actionLifecycle) = $0 { true } else { false } })
        #expect(session.actions.shown.map(\.message.actionID) == ["a1"], "the action stays shown")
        #expect(
            KarteSessionTests.replies(refused)[4]
                == .fields([
                    "action": "a1", "url": "https://example.com/y", "target": "_self", "opened": "refused",
                    "detail": "the scheme \"javascript\" is not allowed",
                    "reset": "false",
                ])
        )
        // A claimed link (a URL handler took it, as the SDKs' shouldOpenURL returning false) is a click.
        _ = try session.perform(.click(actionID: nil, link: .index("1")), 5, now: t0)
        #expect(Self.tracked(session.opened(5, .claimed(by: "org.example.Handler"), now: t0)) == ["message_click"])
        #expect(session.actions.shown.isEmpty)
    }

    @Test func aBlankLinkKeepsTheActionAndAForgottenClickIsNotAnswered() throws {
        var session = try Self.showing()
        let clicked = try session.perform(.click(actionID: "a1", link: .url("https://example.com/x")), 5, now: t0)
        #expect(!clicked.contains { if case .emit(.actionLifecycle(let step)) = $0 { step.phase == .didDisappear } else { false } })
        #expect(session.actions.shown.count == 1)
        session.forgetRequest(5)
        #expect(session.opened(5, .refused("no"), now: t0).isEmpty)
    }

    @Test func aClickOnNothingOrAMissingLinkIsRefused() throws {
        var idle = KarteSessionTests.started().0
        #expect(throws: ChannelError(.illegalState, "no action is shown")) { try idle.perform(.click(actionID: nil, link: .index("0")), 1, now: t0) }
        var session = try Self.showing()
        #expect(throws: ChannelError(.illegalState, "no action a9 is shown; see attendantctl actions list")) {
            try session.perform(.click(actionID: "a9", link: .index("0")), 2, now: t0)
        }
        #expect(throws: ChannelError(.invalidArgument, "action a1 has links 0 to 1, not 7")) {
            try session.perform(.click(actionID: nil, link: .index("7")), 3, now: t0)
        }
        #expect(throws: ChannelError(.invalidArgument, "action a1 has links 0 to 1, not x")) {
            try session.perform(.click(actionID: nil, link: .index("x")), 3, now: t0)
        }
        #expect(throws: ChannelError(.invalidArgument, "action a1 has no link to https://nowhere")) {
            try session.perform(.click(actionID: nil, link: .url("https://nowhere")), 3, now: t0)
        }
        #expect(session.actions.shown.count == 1, "a refused click changes nothing")
    }

    @Test func suppressIsKeptOnlyWhenTheSettingsSaySo() throws {
        var kept = KarteSession(settings: .init(suppressPersists: true))
        #expect(KarteSessionTests.stored(try kept.perform(.suppress, 1, now: t0))[KarteSession.StoreKey.suppressed] == .some("true"))
        var (session, _) = KarteSessionTests.started()
        #expect(KarteSessionTests.stored(try session.perform(.suppress, 1, now: t0)).isEmpty)
        guard case .fields(let listed)? = KarteSessionTests.replies(try session.perform(.list, 2, now: t0))[2] else {
            Issue.record("no list")
            return
        }
        #expect(listed["suppressed"] == "true")
    }
}
