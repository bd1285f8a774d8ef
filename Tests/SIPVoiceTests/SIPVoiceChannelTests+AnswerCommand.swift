import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Glibc
import SIPCore
import TestSupport
import Testing

/// Accept through `answer-command`: a redirect to where the command says, or (`accept = "softphone"`) a
/// softphone told to answer while this fork rings on; and commands that fail, print nothing or hang.
extension SIPVoiceChannelTests {
    /// A shell script named `name` in `folder`, executable, running `commands`.
    static func script(_ name: String, in folder: String, _ commands: String) throws -> String {
        let path = folder + "/" + name
        try "#!/bin/sh\n\(commands)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o700)
        return path
    }

    @Test func anAnswerCommandSaysWhereTheCallGoes() async throws {
        let folder = try makeTemporaryFolder("attendant-sipvoice")
        // It also lists the descriptors it got: none of the daemon's sockets (besides standard input,
        // output and error, only the folder ls reads).
        let script = try Self.script(
            "answer",
            in: folder,
            """
            ls /proc/self/fd > \(folder)/descriptors
            echo "sip:desk-phone@127.0.0.1:5098;caller=$ATTENDANT_CALLER_URI" | sed 's/;caller=.*//'
            """
        )
        let rig = try Self.rig(["answer-command": .array([.string(script)])])
        _ = try await Self.listen(rig)
        rig.peer.send(.request(rig.peer.invite()))
        _ = await rig.host.nextEvent()
        _ = try await rig.channel.perform(.accept(contactID: "call-1@peer"))
        var response = try await rig.peer.receiveResponse()
        while response.statusCode < 200 { response = try await rig.peer.receiveResponse() }
        #expect(response.statusCode == 302)
        #expect(response.headers[.contact] == "<sip:desk-phone@127.0.0.1:5098>")
        let descriptors = try String(contentsOfFile: folder + "/descriptors", encoding: .utf8)
        #expect(descriptors.split(separator: "\n") == ["0", "1", "2", "3"], "\(descriptors)")
        try await Self.stop(rig)
    }

    /// `accept = "softphone"` (issue 30): the command tells the softphone ringing beside this fork to answer,
    /// and this fork sends no final response of its own; the proxy's CANCEL with Reason cause=200 ends it as
    /// answered elsewhere. Before, Accept always answered 302 (or failed for a command that prints nothing).
    @Test func withAcceptSoftphoneTheCommandTellsTheSoftphoneAndTheForkRingsUntilTheProxyCancelsIt() async throws {
        let folder = try makeTemporaryFolder("attendant-sipvoice")
        let script = try Self.script("tell", in: folder, "echo \"$ATTENDANT_CALL_ID $ATTENDANT_CALLER_URI\" > \(folder)/told")
        let rig = try Self.rig(["accept": .string("softphone"), "answer-command": .array([.string(script)]), "softphone-contact": .string("-")])
        _ = try await Self.listen(rig)
        let invite = rig.peer.invite()
        rig.peer.send(.request(invite))
        _ = await rig.host.nextEvent()
        #expect(try await rig.peer.receiveResponse().statusCode == 180)
        _ = try await rig.channel.perform(.accept(contactID: "call-1@peer"))
        #expect(try String(contentsOfFile: folder + "/told", encoding: .utf8) == "call-1@peer sip:ada@example.org\n")
        let again = await #expect(throws: ChannelError.self) { try await rig.channel.perform(.accept(contactID: "call-1@peer")) }
        #expect(again?.message.contains("already handed to the softphone") == true, "\(String(describing: again))")

        // The softphone answered: the proxy cancels this fork (RFC 3261 section 16.7 step 10, RFC 3326).
        var cancel = rig.peer.inTransaction(.cancel, of: invite)
        cancel.headers.add(.reason, "SIP;cause=200;text=\"Call completed elsewhere\"")
        rig.peer.send(.request(cancel))
        var statuses: [Int] = []
        while !statuses.contains(487) { statuses.append(try await rig.peer.receiveResponse().statusCode) }
        // Everything this fork answered after its 180, in order: no 302 or other final response before the 487.
        #expect(statuses.sorted() == [200, 487], "\(statuses)")
        guard case .contactEnded("call-1@peer", .answeredElsewhere) = await rig.host.nextEvent() else {
            Issue.record("expected answered elsewhere")
            return
        }
        try await Self.stop(rig)
    }

    @Test func withAcceptSoftphoneAFailingCommandSaysWhatFailedAndTheCallRingsOn() async throws {
        let folder = try makeTemporaryFolder("attendant-sipvoice")
        let failing = try Self.script("failing", in: folder, "exit 2")
        let hanging = try Self.script("hanging", in: folder, "exec sleep 60")
        // The failing command has all the time a busy machine may need to run `exit 2`; only the hanging
        // one meets its limit.
        for (script, timeout, message) in [
            (failing, "30s", "answer-command \(failing) exited with status 2; run it by hand"),
            (hanging, "300ms", "answer-command \(hanging) did not finish within 0.3 s and was stopped"),
        ] {
            let rig = try Self.rig([
                "accept": .string("softphone"), "answer-command": .array([.string(script)]), "answer-timeout": .string(timeout),
                "softphone-contact": .string("-"),
            ])
            _ = try await Self.listen(rig)
            rig.peer.send(.request(rig.peer.invite()))
            _ = await rig.host.nextEvent()
            let error = await #expect(throws: ChannelError.self) { try await rig.channel.perform(.accept(contactID: "call-1@peer")) }
            #expect(
                error?.message.hasPrefix("sip-voice: the softphone was not told to answer, and the call rings on") == true,
                "\(String(describing: error))"
            )
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
            // Still ringing: it can be declined.
            _ = try await rig.channel.perform(.decline(contactID: "call-1@peer"))
            try await Self.stop(rig)
        }
    }

    @Test func anAnswerCommandThatPrintsNothingOrHangsKeepsTheCallRinging() async throws {
        let folder = try makeTemporaryFolder("attendant-sipvoice")
        let silent = try Self.script("silent", in: folder, "exit 3")
        let hanging = try Self.script("hanging", in: folder, "exec sleep 60")

        let rig = try Self.rig(["answer-command": .array([.string(silent)])])
        _ = try await Self.listen(rig)
        rig.peer.send(.request(rig.peer.invite()))
        _ = await rig.host.nextEvent()
        let error = await #expect(throws: ChannelError.self) { try await rig.channel.perform(.accept(contactID: "call-1@peer")) }
        #expect(
            error?.message
                == "sip-voice: the call keeps ringing: answer-command \(silent) exited with status 3 without printing where to send the call"
        )
        // Still ringing: it can be declined.
        _ = try await rig.channel.perform(.decline(contactID: "call-1@peer"))
        try await Self.stop(rig)

        let slow = try Self.rig(["answer-command": .array([.string(hanging)]), "answer-timeout": .string("300ms")])
        _ = try await Self.listen(slow)
        slow.peer.send(.request(slow.peer.invite()))
        _ = await slow.host.nextEvent()
        let timedOut = await #expect(throws: ChannelError.self) { try await slow.channel.perform(.accept(contactID: "call-1@peer")) }
        #expect(timedOut?.message.contains("printed no address within 0.3 s and was stopped") == true, "\(String(describing: timedOut))")
        try await Self.stop(slow)
    }
}
