import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 30, who is calling and calls taken elsewhere: the real `attendantd` registered with kamailio, on a
/// desktop with dunst, called by sipp through kamailio (the registrar's flow) and straight at its Contact.
@Suite(.serialized, .timeLimit(.minutes(4))) struct SIPVoiceCallerDaemonTests {
    @Test func aCallCancelledAsCompletedElsewhereIsNotMissedAndTheRegistrarsAssertedCallerIsShown() async throws {
        let peers = try await VoicePeers()
        defer { peers.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        defer { desktop.stop() }
        let script = try scratch.write("token", "#!/bin/sh\nprintf '%s\\n' '\(peers.secret)'\n")
        chmod(script, 0o700)
        let config = try scratch.write(
            "attendant.toml",
            """
            [[channel]]
            name = "phone"
            plugin = "sip-voice"
            token-command = ["\(script)"]

            [channel.sip-voice]
            registrar = "\(peers.registrarURI())"
            address-of-record = "sip:alice@127.0.0.1"
            authentication = "ephemeral"
            softphone-contact = "<sip:softphone@127.0.0.1:5999>"
            """
        )
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: desktop.environment)
        try #require(await daemon.waitForLog("ready: phone listening"), "\(daemon.stderr)")
        let bindings = try await peers.waitForContacts(of: "alice", "the daemon's binding") { $0.count == 1 }
        func contacts() async throws -> [[String: Any]] {
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = desktop.sessionBusAddress
            let (_, output) = try await run(TokenDaemonTests.attendantctl, ["contacts", "--json"], environment: environment)
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        }
        func contact(_ what: String, where condition: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
            var found: [String: Any]?
            try await eventually("a contact: \(what); stderr:\n\(daemon.stderr)") {
                found = try await contacts().first(where: condition)
                return found != nil
            }
            return found!
        }

        // Through kamailio, the registrar this channel registered with: a forwarded call whose caller the
        // network asserts, cancelled as Twilio cancels the other forks when one device answers.
        let forked = try await SIPp.cancelledCall(
            to: "127.0.0.1:\(peers.port)",
            requestURI: peers.uri("alice"),
            from: "\"Someone Claiming\" <sip:claims@127.0.0.1>",
            headers: [
                "P-Asserted-Identity: \"Ada Lovelace\" <sip:+15551230001@127.0.0.1;user=phone>",
                "P-Asserted-Identity: <tel:+15551230001>",
                "History-Info: <sip:sales@127.0.0.1?Reason=SIP%3Bcause%3D408>;index=1, <sip:alice@127.0.0.1;cause=408>;index=1.1;mp=1",
            ],
            cancelHeaders: ["Reason: SIP;cause=200;text=\"Call completed elsewhere\""],
            directory: peers.directory
        )
        #expect(forked.status == 0, "\(forked.statuses)\n\(forked.output)\n\(peers.registrarReport)")
        let elsewhere = try await contact("the forked call over") { $0["outcome"] is String && $0["from"] as? String == "Ada Lovelace" }
        #expect(elsewhere["outcome"] as? String == "answered-elsewhere", "\(elsewhere)")
        #expect(elsewhere["fromAddress"] as? String == "tel:+15551230001", "\(elsewhere)")
        #expect(elsewhere["fromAsserted"] as? Bool == true, "\(elsewhere)")
        let divertedFrom = elsewhere["divertedFrom"] as? [String: Any]
        #expect(divertedFrom?["address"] as? String == "sip:sales@127.0.0.1" && divertedFrom?["reason"] as? String == "no-answer", "\(elsewhere)")
        // It rang, and its notification closed with the call.
        let ringing = try #require(desktop.printed.first { $0.summary == "Incoming call from Ada Lovelace" }, "\(desktop.printed)")
        #expect(ringing.body.contains("Forwarded by sip:sales@127.0.0.1 (no-answer)"), "\(ringing.body)")
        try await desktop.sessionBus.waitFor("NotificationClosed(\(ringing.id))") {
            $0.type == "signal" && $0.member == "NotificationClosed" && $0.arguments.first?.int == ringing.id
        }

        // Straight at the Contact, not from the registrar: P-Asserted-Identity is anyone's word there, so
        // From is shown; this caller hangs up, a missed call.
        let contactPort = try #require(bindings[0].address.split(separator: "@").last?.split(separator: ";").first.map(String.init), "\(bindings[0])")
        let direct = try await SIPp.cancelledCall(
            to: contactPort,
            requestURI: "sip:alice@\(contactPort)",
            from: "\"Grace Hopper\" <sip:grace@127.0.0.1>",
            headers: ["P-Asserted-Identity: \"Your Bank\" <tel:+15550000000>", "Diversion: <sip:boss@127.0.0.1>;reason=user-busy;counter=1"],
            directory: peers.directory
        )
        #expect(direct.status == 0, "\(direct.statuses)\n\(direct.output)")
        let missed = try await contact("the direct call missed") { $0["outcome"] as? String == "missed" }
        #expect(missed["from"] as? String == "Grace Hopper" && missed["fromAddress"] as? String == "sip:grace@127.0.0.1", "\(missed)")
        #expect(missed["fromAsserted"] as? Bool == false, "\(missed)")
        #expect((missed["divertedFrom"] as? [String: Any])?["address"] as? String == "sip:boss@127.0.0.1", "\(missed)")
        #expect((missed["divertedFrom"] as? [String: Any])?["reason"] as? String == "user-busy", "\(missed)")

        // The missed call's notice came; the call answered elsewhere, handled before it, raised none.
        try await eventually("the missed-call notice") { desktop.printed.contains { $0.summary == "Missed call from Grace Hopper" } }
        #expect(
            !desktop.printed.contains { $0.summary.hasPrefix("Missed call") && $0.summary != "Missed call from Grace Hopper" },
            "\(desktop.printed.map(\.summary))"
        )
        #expect(!desktop.printed.contains { $0.summary.contains("Your Bank") })

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }
}
