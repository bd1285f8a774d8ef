import AttendantCLI
import AttendantControl
import Foundation
import Systemd
import TestSupport
import Testing

/// The built `attendantctl` against the test peer on a private session bus: every command reaches its
/// method with its arguments, prints what it got, and turns error replies into a message and exit code.
@Suite(.timeLimit(.minutes(2))) struct CommandTests {
    @Test func statusHumanAndJSON() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let text = try await attendantctl(["status"], bus: bus.address)
        #expect(text.status == 0, "\(text)")
        #expect(
            text.stdout == """
                attendantd 0.1.0, pid 4242
                Status:          2 channels listening
                Channels:        2, 2 listening
                Do not disturb:  off
                Notifications:   a notification server is running

                """
        )
        let json = try await attendantctl(["status", "--json"], bus: bus.address)
        #expect(json.stdout == Fixtures.status.json.text + "\n")
        let bare = try await attendantctl([], bus: bus.address)
        #expect(bare.stdout == text.stdout, "status is the default command")
        #expect(await peer.calls.map(\.member) == Array(repeating: ControlInterface.Method.getStatus, count: 3))
        await peer.stop()
    }

    @Test func channelsAndContacts() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let channels = try await attendantctl(["channels"], bus: bus.address)
        #expect(channels.status == 0, "\(channels)")
        let lines = channels.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines[0] == "NAME   PLUGIN    STATE      TOKEN              RENEWED              DETAIL")
        #expect(lines[1].hasPrefix("desk   loopback  listening  expires in 50 min  20"))
        #expect(lines[2] == "voice  sip       listening  -                  -")

        let channelsJSON = try await attendantctl(["channels", "--json"], bus: bus.address)
        #expect(channelsJSON.stdout == "[" + Fixtures.channels.map(\.json.text).joined(separator: ",") + "]\n")
        let parsed = try JSONSerialization.jsonObject(with: Data(channelsJSON.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.map { $0["name"] as? String } == ["desk", "voice"])

        let contacts = try await attendantctl(["contacts", "--limit", "5"], bus: bus.address)
        #expect(contacts.status == 0, "\(contacts)")
        #expect(contacts.stdout.split(separator: "\n").count == 3)
        #expect(contacts.stdout.contains(#"desk     call  Ann "Q" Lee"#))
        let one = try await attendantctl(["contacts", "--limit", "1", "--json"], bus: bus.address)
        #expect(one.stdout == "[" + Fixtures.contacts[0].json.text + "]\n")
        let defaultLimit = try await attendantctl(["contacts"], bus: bus.address)
        #expect(defaultLimit.status == 0)

        let m = ControlInterface.Method.self
        #expect(
            await peer.calls == [
                .init(member: m.listChannels, arguments: []), .init(member: m.listChannels, arguments: []),
                .init(member: m.listContacts, arguments: [.uint32(5)]), .init(member: m.listContacts, arguments: [.uint32(1)]),
                .init(member: m.listContacts, arguments: [.uint32(20)]),
            ]
        )
        await peer.stop()
    }

    @Test func acceptDeclineTokenReloadAndDoNotDisturb() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let runs: [([String], String)] = [
            (["accept", "desk-2"], "Accepted desk-2.\n"),
            (["accept", "desk-2", "--channel", "desk", "--json"], #"{"ok":true,"action":"accept","contact":"desk-2","channel":"desk"}"# + "\n"),
            (["decline", "desk-1", "--channel", "desk"], "Declined desk-1 on desk.\n"),
            (["decline", "desk-1", "--json"], #"{"ok":true,"action":"decline","contact":"desk-1","channel":null}"# + "\n"),
            (["token", "renew", "desk"], "Renewed the token of desk; it expires in 50 min.\n"),
            (["token", "renew", "voice", "--json"], #"{"ok":true,"action":"token-renew","channel":"voice","tokenExpiresIn":null}"# + "\n"),
            (["reload"], "Reloaded: 2 channels listening\n"),
            (["reload", "--json"], #"{"ok":true,"action":"reload","status":"2 channels listening"}"# + "\n"),
            (["dnd"], "Do not disturb is off.\n"),
            (["dnd", "on"], "Do not disturb is now on.\n"),
            (["dnd", "--json"], #"{"doNotDisturb":true}"# + "\n"),
            (["dnd", "off", "--json"], #"{"doNotDisturb":false}"# + "\n"),
        ]
        for (arguments, expected) in runs {
            let result = try await attendantctl(arguments, bus: bus.address)
            #expect(result.status == 0 && result.stdout == expected && result.stderr.isEmpty, "\(arguments): \(result)")
        }
        let m = ControlInterface.Method.self
        let calls = await peer.calls
        #expect(
            calls == [
                .init(member: m.accept, arguments: [.string(""), .string("desk-2")]),
                .init(member: m.accept, arguments: [.string("desk"), .string("desk-2")]),
                .init(member: m.decline, arguments: [.string("desk"), .string("desk-1")]),
                .init(member: m.decline, arguments: [.string(""), .string("desk-1")]),
                .init(member: m.renewToken, arguments: [.string("desk")]), .init(member: m.listChannels, arguments: []),
                .init(member: m.renewToken, arguments: [.string("voice")]), .init(member: m.listChannels, arguments: []),
                .init(member: m.reload, arguments: []), .init(member: m.reload, arguments: []),
                .init(member: m.getStatus, arguments: []),
                .init(member: m.setDoNotDisturb, arguments: [.boolean(true)]),
                .init(member: m.getStatus, arguments: []),
                .init(member: m.setDoNotDisturb, arguments: [.boolean(false)]),
            ],
            "\(calls)"
        )
        await peer.stop()
    }

    /// Every method's D-Bus error reply becomes `attendantctl: <message>` and exit status 1.
    @Test(arguments: [
        (["accept", "nope"], ControlInterface.Method.accept, ControlError.noSuchContact, "no contact nope on any channel"),
        (["decline", "c1", "--channel", "ghost"], ControlInterface.Method.decline, ControlError.noSuchChannel, "no channel named ghost"),
        (
            ["token", "renew", "desk"], ControlInterface.Method.renewToken, ControlError.tokenRenewalFailed,
            "desk: the token command exited with status 2"
        ),
        (["reload"], ControlInterface.Method.reload, ControlError.reloadFailed, "attendant.toml:3: key \"nmae\": unknown key"),
        (["dnd", "on"], ControlInterface.Method.setDoNotDisturb, ControlError.unsupported, "not now"),
        (["status"], ControlInterface.Method.getStatus, "org.freedesktop.DBus.Error.Failed", "broken"),
        (["channels"], ControlInterface.Method.listChannels, "org.freedesktop.DBus.Error.Failed", "broken"),
        (["contacts"], ControlInterface.Method.listContacts, "org.freedesktop.DBus.Error.Failed", "broken"),
    ])
    func errorRepliesBecomeTheMessageAndExitStatusOne(_ arguments: [String], _ member: String, _ name: String, _ message: String) async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.fail(member, name, message)
        let text = try await attendantctl(arguments, bus: bus.address)
        #expect(text.status == 1, "\(text)")
        #expect(text.stderr == "attendantctl: \(message)\n")
        #expect(text.stdout.isEmpty)
        let json = try await attendantctl(arguments + ["--json"], bus: bus.address)
        #expect(json.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "refused")
        #expect(error?["name"] as? String == name)
        #expect(error?["message"] as? String == message)
        await peer.stop()
    }

    @Test func healthAgainstThePeer() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let ok = try await attendantctl(["health"], bus: bus.address)
        #expect(ok.status == 0)
        #expect(ok.stdout == "ATTENDANT OK - 2 channels listening | channels=2;;;0 listening=2;;;0 desk_token_expiry=3000s;900:;1:\n")

        let soon = try await attendantctl(["health", "--token-warning", "1h"], bus: bus.address)
        #expect(soon.status == 1)
        #expect(soon.stdout.hasPrefix("ATTENDANT WARNING - desk token expires in 50 min | "))

        await peer.set(channels: [
            ChannelRecord(name: "desk", plugin: "loopback", state: "recovering", detail: "connection refused"),
            ChannelRecord(name: "ghost", plugin: "sip", state: "failed", detail: "sign-in needed: the token was rejected"),
        ])
        let critical = try await attendantctl(["health"], bus: bus.address)
        #expect(critical.status == 2)
        #expect(
            critical.stdout.hasPrefix(
                "ATTENDANT CRITICAL - ghost failed: sign-in needed: the token was rejected; desk recovering: connection refused | "
            )
        )
        let json = try await attendantctl(["health", "--json"], bus: bus.address)
        #expect(json.status == 2)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["status"] as? String == "CRITICAL" && object?["exitCode"] as? Int == 2)
        #expect((object?["problems"] as? [Any])?.count == 2)

        await peer.fail(ControlInterface.Method.listChannels, "org.freedesktop.DBus.Error.Failed", "broken")
        let unknown = try await attendantctl(["health"], bus: bus.address)
        #expect(unknown.status == 3)
        #expect(unknown.stdout == "ATTENDANT UNKNOWN - broken\n")
        await peer.stop()
    }
}

/// The chat commands against the scripted peer: each reaches its method with its arguments and prints
/// the reply; each error name becomes the message and exit status 1.
@Suite(.timeLimit(.minutes(2))) struct ChatCommandTests {
    @Test func everyChatCommandReachesItsMethod() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let t1 = Fixtures.threads[0]
        let runs: [([String], String)] = [
            (["chat", "prepare", "--channel", "web"], "Prepared the chat on web.\n"),
            (["chat", "prepare", "--channel", "web", "--json"], #"{"ok":true,"action":"chat-prepare","channel":"web"}"# + "\n"),
            (["chat", "connect", "--channel", "web"], "Connected the chat on web.\n"),
            (["chat", "connect", "--channel", "web", "--json"], #"{"ok":true,"action":"chat-connect","channel":"web"}"# + "\n"),
            (
                ["chat", "view", "Pricing", "https://example.test/p", "--channel", "web"],
                "Reported viewing \"Pricing\" (https://example.test/p) on web.\n"
            ),
            (
                ["chat", "view", "Pricing", "https://example.test/p", "--channel", "web", "--json"],
                #"{"ok":true,"action":"chat-view","channel":"web","title":"Pricing","url":"https://example.test/p"}"# + "\n"
            ),
            (["chat", "threads", "--channel", "web", "--json"], "[" + Fixtures.threads.map(\.json.text).joined(separator: ",") + "]\n"),
            (["chat", "open", "t1", "--channel", "web", "--json"], t1.json.text + "\n"),
            (
                ["chat", "create", "--channel", "web", "--field", "name=Billing 2", "--field", "topic=x", "--json"],
                #"{"id":"thread-3","name":"Billing 2","state":"pending","lastMessages":[]}"# + "\n"
            ),
            (["chat", "create", "--channel", "web"], "Created thread-4 on web: pending.\n"),
            (["chat", "send", "Hello", "there", "--channel", "web"], "Sent on web.\n"),
            (
                ["chat", "send", "--thread", "t1", "Hi", "--channel", "web", "--json"],
                #"{"ok":true,"action":"chat-send","channel":"web","thread":"t1","text":"Hi","delivery":"sent","message":null,"reason":null}"# + "\n"
            ),
            (["chat", "send", "Later", "--channel", "web"], "Queued on web: the chat is connecting.\n"),
            (
                ["chat", "send", "Later", "--channel", "web", "--json"],
                #"{"ok":true,"action":"chat-send","channel":"web","thread":null,"text":"Later","delivery":"queued","message":"m-2","reason":"the chat is connecting"}"#
                    + "\n"
            ),
            (["chat", "end", "--channel", "web"], "Ended the conversation on web.\n"),
            (
                ["chat", "end", "--thread", "t1", "--channel", "web", "--json"],
                #"{"ok":true,"action":"chat-end","channel":"web","thread":"t1"}"# + "\n"
            ),
        ]
        for (arguments, expected) in runs {
            let result = try await attendantctl(arguments, bus: bus.address)
            #expect(result.status == 0 && result.stdout == expected && result.stderr.isEmpty, "\(arguments): \(result)")
        }
        let m = ControlInterface.Method.self
        let web = BusValue.string("web")
        let calls = await peer.calls
        #expect(
            calls == [
                .init(member: m.chatPrepare, arguments: [web]), .init(member: m.chatPrepare, arguments: [web]),
                .init(member: m.chatConnect, arguments: [web]), .init(member: m.chatConnect, arguments: [web]),
                .init(member: m.chatViewPage, arguments: [web, .string("Pricing"), .string("https://example.test/p")]),
                .init(member: m.chatViewPage, arguments: [web, .string("Pricing"), .string("https://example.test/p")]),
                .init(member: m.chatListThreads, arguments: [web]),
                .init(member: m.chatOpenThread, arguments: [web, .string("t1")]),
                .init(
                    member: m.chatCreateThread,
                    arguments: [
                        web,
                        .dictionary(key: "s", value: "s", [.init(.string("name"), .string("Billing 2")), .init(.string("topic"), .string("x"))]),
                    ]
                ),
                .init(member: m.chatCreateThread, arguments: [web, .dictionary(key: "s", value: "s", [])]),
                .init(member: m.chatSendMessage, arguments: [web, .string(""), .string("Hello there")]),
                .init(member: m.chatSendMessage, arguments: [web, .string("t1"), .string("Hi")]),
                .init(member: m.chatSendMessage, arguments: [web, .string(""), .string("Later")]),
                .init(member: m.chatSendMessage, arguments: [web, .string(""), .string("Later")]),
                .init(member: m.chatEndConversation, arguments: [web, .string("")]),
                .init(member: m.chatEndConversation, arguments: [web, .string("t1")]),
            ],
            "\(calls)"
        )
        await peer.stop()
    }

    @Test func threadsAndAThreadForPeople() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let threads = try await attendantctl(["chat", "threads", "--channel", "web"], bus: bus.address)
        #expect(threads.status == 0, "\(threads)")
        #expect(
            threads.stdout == """
                ID  NAME     STATE   MESSAGES  LAST
                t1  Billing  ready   2         Ann "Q" Lee: Hi! How can I help?
                t2           closed  0         -

                """,
            "\(threads)"
        )
        let open = try await attendantctl(["chat", "open", "t1", "--channel", "web"], bus: bus.address)
        let lines = open.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(open)")
        #expect(lines.first == #"Thread t1 "Billing" on web: ready"#)
        #expect(lines.dropFirst().first?.hasSuffix("  You: Hello") == true)
        #expect(lines.last?.hasSuffix(#"  Ann "Q" Lee: Hi! How can I help?"#) == true)
        await peer.set(threads: [])
        let none = try await attendantctl(["chat", "threads", "--channel", "web"], bus: bus.address)
        #expect(none.stdout == "No chat threads on web.\n")
        #expect(try await attendantctl(["chat", "threads", "--channel", "web", "--json"], bus: bus.address).stdout == "[]\n")
        await peer.stop()
    }

    @Test func withoutChannelTheOnlyChannelIsUsed() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let several = try await attendantctl(["chat", "prepare"], bus: bus.address)
        #expect(several.status == 64, "\(several)")
        #expect(several.stderr.contains("attendantd has several channels (desk, voice); name the chat channel with --channel"), "\(several)")
        await peer.set(channels: [])
        let none = try await attendantctl(["chat", "connect"], bus: bus.address)
        #expect(none.status == 64 && none.stderr.contains("attendantd has no channels configured"), "\(none)")
        await peer.set(channels: [ChannelRecord(name: "web", plugin: "cxone", state: "listening")])
        let only = try await attendantctl(["chat", "prepare", "--json"], bus: bus.address)
        #expect(only.status == 0 && only.stdout == #"{"ok":true,"action":"chat-prepare","channel":"web"}"# + "\n", "\(only)")
        let m = ControlInterface.Method.self
        #expect(
            await peer.calls.map(\.member) == [m.listChannels, m.listChannels, m.listChannels, m.chatPrepare]
        )
        await peer.stop()
    }

    /// Each chat method's D-Bus error reply becomes `attendantctl: <message>` and exit status 1.
    @Test(arguments: [
        (["chat", "prepare"], ControlInterface.Method.chatPrepare, ControlError.noSuchChannel, #"no running channel "ghost"; running: desk"#),
        (["chat", "connect"], ControlInterface.Method.chatConnect, ControlError.illegalState, "channel web: connect before prepare"),
        (["chat", "view", "T", "U"], ControlInterface.Method.chatViewPage, ControlError.unsupported, "channel web: no view-page requests here"),
        (["chat", "threads"], ControlInterface.Method.chatListThreads, ControlError.serverError, "channel web: the server answered 503"),
        (["chat", "open", "t9"], ControlInterface.Method.chatOpenThread, ControlError.serverError, #"channel web: no thread "t9""#),
        (["chat", "create"], ControlInterface.Method.chatCreateThread, ControlError.channelFailed, "channel web: the connection dropped"),
        (["chat", "send", "hi"], ControlInterface.Method.chatSendMessage, ControlError.illegalState, "channel web: thread t1 is closed"),
        (["chat", "end"], ControlInterface.Method.chatEndConversation, ControlError.illegalState, "channel web: no thread"),
    ])
    func errorRepliesBecomeTheMessageAndExitStatusOne(_ arguments: [String], _ member: String, _ name: String, _ message: String) async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.fail(member, name, message)
        let text = try await attendantctl(arguments + ["--channel", "web"], bus: bus.address)
        #expect(text.status == 1, "\(text)")
        #expect(text.stderr == "attendantctl: \(message)\n")
        #expect(text.stdout.isEmpty)
        let json = try await attendantctl(arguments + ["--channel", "web", "--json"], bus: bus.address)
        #expect(json.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "refused")
        #expect(error?["name"] as? String == name)
        #expect(error?["message"] as? String == message)
        await peer.stop()
    }
}
