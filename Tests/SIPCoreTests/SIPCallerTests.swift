import AttendantPluginAPI
import AttendantPluginKit
import SIPCore
import Testing

/// Who is calling (RFC 3325 P-Asserted-Identity, trusted only from the registrar), who forwarded the call
/// (RFC 5806 Diversion, RFC 7044 History-Info), and a CANCEL for a call answered elsewhere (RFC 3326).
@Suite struct SIPCallerTests {
    typealias Table = SIPCallTableTests.Table

    static func invite(_ extra: [String]) throws -> SIPRequest {
        try SIPCallTableTests.request(
            Fixtures.message(
                [
                    "INVITE sip:alice@192.0.2.10:5060 SIP/2.0",
                    "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-caller",
                    "To: <sip:alice@example.com>",
                    "From: \"Claimed Name\" <sip:claimed@example.com>;tag=77",
                    "Call-ID: caller-1@192.0.2.1",
                    "CSeq: 1 INVITE",
                ] + extra + ["Content-Length: 0"]
            )
        )
    }

    static let cancel = [
        "CANCEL sip:alice@192.0.2.10:5060 SIP/2.0",
        "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-caller",
        "To: <sip:alice@example.com>",
        "From: \"Claimed Name\" <sip:claimed@example.com>;tag=77",
        "Call-ID: caller-1@192.0.2.1",
        "CSeq: 1 CANCEL",
    ]

    // MARK: Parsing

    @Test func reasonValuesParseWithTheirCauseAndText() throws {
        let headers: SIPHeaders = [(.reason, "SIP ;cause=200 ;text=\"Call completed elsewhere\", Q.850;cause=16;text=\"Terminated\"")]
        let reasons = try headers.reasons
        #expect(
            reasons == [
                SIPReason(protocolName: "SIP", cause: 200, text: "Call completed elsewhere"),
                SIPReason(protocolName: "Q.850", cause: 16, text: "Terminated"),
            ]
        )
        #expect(reasons[0].isSIP(200) && !reasons[1].isSIP(200))
        #expect(SIPReason(protocolName: "sip", cause: 200).isSIP(200), "the protocol name ignores case")
        #expect(throws: SIPParseError.self) { try ([(.reason, ";cause=200")] as SIPHeaders).reasons }
    }

    @Test func historyInfoGivesTheRetargetedEntryAndItsCause() throws {
        // RFC 7044 section 4.1's forms: a registered contact (rc) and a retarget (mp) with RFC 4458's cause.
        let headers: SIPHeaders = [
            (.historyInfo, "<sip:sales@example.com>;index=1, \"Front Desk\" <sip:desk@example.com?Reason=SIP%3Bcause%3D486>;index=1.1;rc=1"),
            (.historyInfo, "<sip:alice@example.com;cause=486>;index=1.1.1;mp=1.1, <sip:alice@192.0.2.10:5060>;index=1.1.1.1;rc=1.1.1"),
        ]
        let entries = try headers.historyInfo
        #expect(entries.map(\.index) == [[1], [1, 1], [1, 1, 1], [1, 1, 1, 1]])
        #expect(entries.map(\.tag) == [nil, .registeredContact([1]), .mapped([1, 1]), .registeredContact([1, 1, 1])])
        #expect(entries[2].cause == 486)
        #expect(entries[1].reason == SIPReason(protocolName: "SIP", cause: 486))
        let diversion = try #require(SIPDiversion.of(headers))
        #expect(diversion.party.displayName == "Front Desk")
        #expect(diversion.party.uri.description == "sip:desk@example.com", "the URI without its escaped Reason")
        #expect(diversion.reason == "user-busy")
        #expect(throws: SIPParseError.self) { try ([(.historyInfo, "<sip:a@example.com>")] as SIPHeaders).historyInfo }
    }

    @Test func historyInfoWithoutACauseTakesTheRetargetedEntrysReasonAndWithoutARetargetIsNoDiversion() throws {
        let reasoned: SIPHeaders = [(.historyInfo, "<sip:bob@example.com?Reason=SIP%3Bcause%3D302>;index=1, <sip:office@example.com>;index=1.1;mp=1")]
        #expect(
            SIPDiversion.of(reasoned) == SIPDiversion(party: SIPNameAddress(uri: try SIPURI(parsing: "sip:bob@example.com")), reason: "unconditional")
        )
        // Only an AoR to contact step: the call reached the user it was for.
        let registered: SIPHeaders = [(.historyInfo, "<sip:alice@example.com>;index=1, <sip:alice@192.0.2.10>;index=1.1;rc=1")]
        #expect(SIPDiversion.of(registered) == nil)
        // RFC 4244 entries (no tags): a cause on the URI marks the retarget.
        let legacy: SIPHeaders = [(.historyInfo, "<sip:bob@example.com>;index=1, <sip:vm@example.com;cause=408>;index=1.1")]
        #expect(SIPDiversion.of(legacy)?.party.uri.description == "sip:bob@example.com")
        #expect(SIPDiversion.of(legacy)?.reason == "no-answer")
    }

    @Test func theTopmostDiversionIsTheLastForwardingAndHistoryInfoComesFirst() throws {
        let diversion: SIPHeaders = [
            (.diversion, "\"Boss\" <sip:boss@example.com>;reason=no-answer;counter=1;privacy=off, <sip:first@example.com>;reason=unconditional")
        ]
        #expect(
            SIPDiversion.of(diversion)
                == SIPDiversion(party: SIPNameAddress(displayName: "Boss", uri: try SIPURI(parsing: "sip:boss@example.com")), reason: "no-answer")
        )
        var both = diversion
        both.add(.historyInfo, "<sip:sales@example.com>;index=1, <sip:alice@example.com;cause=302>;index=1.1;mp=1")
        #expect(SIPDiversion.of(both)?.party.uri.description == "sip:sales@example.com")
        #expect(SIPDiversion.of([(.diversion, "not an address <")]) == nil)
    }

    // MARK: The caller of a call

    @Test func theAssertedIdentityIsShownOnlyFromTheRegistrarsFlow() throws {
        let invite = try Self.invite([
            "P-Asserted-Identity: \"Ada Lovelace\" <sip:+15551230001@example.com;user=phone>, <tel:+15551230001>",
            "Diversion: <sip:sales@example.com>;reason=unconditional",
        ])
        let trusted = SIPCaller(invite: invite, trustingAssertedIdentity: true)
        #expect(trusted.party == Party(displayName: "Ada Lovelace", address: "tel:+15551230001"))
        #expect(trusted.asserted)
        #expect(trusted.diversion == Contact.Diversion(from: Party(displayName: "", address: "sip:sales@example.com"), reason: "unconditional"))
        let untrusted = SIPCaller(invite: invite, trustingAssertedIdentity: false)
        #expect(untrusted.party == Party(displayName: "Claimed Name", address: "sip:claimed@example.com"))
        #expect(!untrusted.asserted)
        let none = SIPCaller(invite: try Self.invite([]), trustingAssertedIdentity: true)
        #expect(none.party.displayName == "Claimed Name" && !none.asserted && none.diversion == nil)
    }

    @Test func theCallTableTrustsTheFlowButNotADatagramFromElsewhere() throws {
        let invite = try Self.invite(["P-Asserted-Identity: \"Ada Lovelace\" <tel:+15551230001>"])
        let origins = [
            SIPOrigin(path: .flow, description: "the registrar"),
            SIPOrigin(path: .datagram(NetworkAddress(ip: "198.51.100.9", port: 5060)), description: "198.51.100.9:5060 over UDP"),
        ]
        #expect(origins.map(\.isRegistrarFlow) == [true, false])
        var registrarDatagram = origins[1]
        registrarDatagram.isRegistrarFlow = true
        var shown: [String] = []
        for origin in origins + [registrarDatagram] {
            var table = Table()
            var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 3))
            let actions = table.receive(invite, from: origin, listening: true, identifiers: &identifiers, now: SIPCallTableTests.now) {
                SIPCallTableTests.settings
            }
            guard case .incomingContact(let contact)? = SIPCallTableTests.events(actions).last else {
                Issue.record("no contact: \(actions)")
                return
            }
            shown.append("\(contact.from)\(contact.fromAsserted ? " asserted" : "")")
        }
        #expect(
            shown == [
                "Ada Lovelace <tel:+15551230001> asserted", "Claimed Name <sip:claimed@example.com>", "Ada Lovelace <tel:+15551230001> asserted",
            ]
        )
    }

    // MARK: Answered elsewhere

    @Test func aCancelsReasonSaysWhetherTheCallWasAnsweredOrDeclinedElsewhere() throws {
        let cases: [([String], ContactOutcome)] = [
            (["Reason: SIP;cause=200;text=\"Call completed elsewhere\""], .answeredElsewhere),
            (["Reason: Q.850;cause=16, SIP ;cause=200"], .answeredElsewhere),
            (["Reason: Q.850;cause=200"], .missed),
            (["Reason: SIP;cause=487"], .missed),
            // Another branch declined: RFC 3261 section 16.7 step 5 cancels the rest, RFC 3326 says why.
            (["Reason: SIP;cause=603;text=\"Decline\""], .declined),
            (["Reason: SIP;cause=600;text=\"Busy Everywhere\""], .declined),
            (["Reason: Q.850;cause=21"], .missed),
            ([], .missed),
            (["Reason: ;;garbage"], .missed),
        ]
        for (headers, expected) in cases {
            var table = Table()
            var identifiers = SIPIdentifiers(generator: SeededGenerator(seed: 4))
            let origin = SIPOrigin(path: .flow, description: "the registrar")
            _ = table.receive(try Self.invite([]), from: origin, listening: true, identifiers: &identifiers, now: SIPCallTableTests.now) {
                SIPCallTableTests.settings
            }
            let cancel = try SIPCallTableTests.request(Fixtures.message(Self.cancel + headers + ["Content-Length: 0"]))
            let actions = table.receive(cancel, from: origin, listening: true, identifiers: &identifiers, now: SIPCallTableTests.now) {
                SIPCallTableTests.settings
            }
            #expect(SIPCallTableTests.responses(actions).map(\.0).sorted() == [200, 487], "\(headers)")
            guard case .contactEnded("caller-1@192.0.2.1", let outcome)? = SIPCallTableTests.events(actions).first else {
                Issue.record("the call did not end: \(actions)")
                continue
            }
            #expect(outcome == expected, "\(headers)")
        }
        #expect(ContactOutcome.answeredElsewhere.rawValue == "answered-elsewhere")
    }
}
