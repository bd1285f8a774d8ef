import AttendantPluginAPI
import AttendantPluginKit
import SIPCore
import Testing

/// The call table: which answer each request gets, and a call from its INVITE to its end, with no network.
@Suite struct SIPCallTableTests {
    typealias Table = SIPCallTable

    static func origin(_ name: String) -> SIPOrigin { SIPOrigin(path: .flow, description: name) }

    static let settings = Table.Settings(
        reliable: true,
        ringTimeout: .seconds(30),
        localContact: SIPNameAddress(uri: try! SIPURI(parsing: "sip:alice@192.0.2.10:5060;transport=tcp")),
        timers: SIPTimers(),
        canAccept: true
    )
    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func request(_ bytes: [UInt8]) throws -> SIPRequest {
        try #require(try SIPMessage(parsing: bytes).request)
    }

    static func request(method: String) throws -> SIPRequest {
        try Self.request(
            Fixtures.message([
                "\(method) sip:alice@192.0.2.10:5060 SIP/2.0",
                "Via: SIP/2.0/UDP 198.51.100.7:5080;branch=z9hG4bK-\(method.lowercased())",
                "To: <sip:alice@example.com>",
                "From: <sip:bob@example.com>;tag=99",
                "Call-ID: other-\(method.lowercased())@198.51.100.7",
                "CSeq: 1 \(method)",
                "Content-Length: 0",
            ])
        )
    }

    /// The responses among `actions`, as status codes with where they go.
    static func responses(_ actions: [Table.Action]) -> [(Int, String?)] {
        actions.compactMap { if case .send(let response, let origin) = $0 { (response.statusCode, origin?.description) } else { nil } }
    }

    static func events(_ actions: [Table.Action]) -> [ChannelEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    @Test func anInviteRingsWithItsAnswerBeforeTheContactAndAcceptingRedirectsIt() throws {
        var table = Table()
        var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 1))
        var asked = 0
        let ringing = table.receive(
            try Self.request(Fixtures.invite),
            from: Self.origin("bob"),
            listening: true,
            identifiers: &identifiers,
            now: Self.now
        ) {
            asked += 1
            return Self.settings
        }
        #expect(asked == 1)
        #expect(Self.responses(ringing).map(\.0) == [180])
        #expect(Self.responses(ringing).map(\.1) == ["bob"])
        guard case .emit(.incomingContact(let contact))? = ringing.last else {
            Issue.record("the contact comes last: \(ringing)")
            return
        }
        #expect(contact.id == "a84b4c76e66710@pc33.example.com")
        #expect(contact.from.displayName == "Bob \"The Builder\"")
        #expect(contact.actions == [.accept, .decline])
        #expect(contact.receivedAt == Self.now)
        #expect(table.ringingCount == 1)

        let call = try table.beginAnswering(contact.id)
        #expect(call.origin.description == "bob")
        #expect(throws: ChannelError(.illegalState, "sip-voice: call \(contact.id) is already being answered")) {
            try table.beginAnswering(contact.id)
        }
        let target = SIPNameAddress(uri: try SIPURI(parsing: "sip:me@127.0.0.1:5070"))
        let accepted = try table.accept(contact.id, redirectingTo: target)
        #expect(Self.responses(accepted).map(\.0) == [302])
        let ended = Self.events(accepted)
        guard case .contactEnded(contact.id, .answered)? = ended.first else {
            Issue.record("not answered: \(ended)")
            return
        }
        #expect(table.ringingCount == 0)
        #expect(throws: ChannelError(.illegalState, "sip-voice: cannot decline call \(contact.id): it is not ringing (the caller may have hung up)"))
        {
            try table.decline(contact.id)
        }
    }

    @Test func aCancelEndsTheRingingCallAsMissedAndAStrayOneIsRefused() throws {
        var table = Table()
        var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 2))
        _ = table.receive(try Self.request(Fixtures.invite), from: Self.origin("bob"), listening: true, identifiers: &identifiers, now: Self.now) {
            Self.settings
        }
        let cancelled = table.receive(
            try Self.request(Fixtures.cancel),
            from: Self.origin("bob"),
            listening: true,
            identifiers: &identifiers,
            now: Self.now
        ) { Self.settings }
        #expect(Self.responses(cancelled).map(\.0).sorted() == [200, 487])
        guard case .contactEnded(_, .missed)? = Self.events(cancelled).first else {
            Issue.record("not missed: \(cancelled)")
            return
        }

        var empty = Table()
        let stray = empty.receive(
            try Self.request(Fixtures.cancel),
            from: Self.origin("bob"),
            listening: true,
            identifiers: &identifiers,
            now: Self.now
        ) { Self.settings }
        #expect(Self.responses(stray).map(\.0) == [481])
    }

    @Test func requestsOutsideACallGetTheirAnswersAndNoCallRingsWhileNotListening() throws {
        var table = Table()
        var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 3))
        var asked = 0
        func answer(_ request: SIPRequest, listening: Bool = true) -> [Table.Action] {
            table.receive(request, from: Self.origin("peer"), listening: listening, identifiers: &identifiers, now: Self.now) {
                asked += 1
                return Self.settings
            }
        }
        let options = answer(try Self.request(method: "OPTIONS"))
        #expect(Self.responses(options).map(\.0) == [200])
        guard case .send(let allow, _)? = options.first else { return }
        #expect(allow.headers[.allow] == Table.allowed)
        #expect(Self.responses(answer(try Self.request(method: "BYE"))).map(\.0) == [481])
        #expect(Self.responses(answer(try Self.request(method: "MESSAGE"))).map(\.0) == [405])
        #expect(Self.responses(answer(try Self.request(Fixtures.invite), listening: false)).map(\.0) == [480])
        #expect(asked == 0, "settings are made only for a call that rings")
        #expect(table.calls.isEmpty)
    }

    @Test func aSecondCopyOfARingingInviteIsRefusedAndGoingAwayEndsEveryCall() throws {
        var table = Table()
        var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 4))
        _ = table.receive(try Self.request(Fixtures.invite), from: Self.origin("bob"), listening: true, identifiers: &identifiers, now: Self.now) {
            Self.settings
        }
        var forked = try Self.request(Fixtures.invite)
        forked.headers.set(.via, "SIP/2.0/UDP 203.0.113.5:5060;branch=z9hG4bK-fork")
        let copy = table.receive(forked, from: Self.origin("fork"), listening: true, identifiers: &identifiers, now: Self.now) { Self.settings }
        #expect(Self.responses(copy).map(\.0) == [482])
        #expect(Self.responses(copy).map(\.1) == ["fork"])

        var unreachable = table
        let leaving = table.endAll(respondingWith: 480, reason: "Temporarily Unavailable")
        #expect(Self.responses(leaving).map(\.0) == [480])
        #expect(table.calls.isEmpty)
        let lost = unreachable.endAll(respondingWith: nil, reason: "")
        #expect(Self.responses(lost).isEmpty)
        guard case .contactEnded(_, .missed)? = Self.events(lost).first else {
            Issue.record("not missed: \(lost)")
            return
        }
    }
}
