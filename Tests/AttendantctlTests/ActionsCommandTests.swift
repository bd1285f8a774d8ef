import AttendantControl
import Foundation
import Systemd
import TestSupport
import Testing

/// The in-app action commands against the scripted peer: each sends its ChannelRequest with its
/// arguments and prints the reply; the channel is the one named or the only karte-actions channel.
@Suite(.timeLimit(.minutes(2))) struct ActionsCommandTests {
    /// The `ChannelRequest` call a command makes on the channel `app`.
    static func request(_ command: String, _ arguments: [String: String] = [:], channel: String = "app") -> ControlPeer.Call {
        let entries = arguments.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
        return .init(
            member: ControlInterface.Method.channelRequest,
            arguments: [.string(channel), .string(command), .dictionary(key: "s", value: "s", entries)]
        )
    }

    @Test func everyCommandSendsItsRequestAndPrintsTheReply() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let runs: [([String], String)] = [
            (["view", "pricing"], "Viewed pricing on app: page pv-2.\n"),
            (
                ["view", "pricing", "--title", "Pricing", "--value", "plan=gold", "--json"],
                #"{"ok":true,"action":"actions-view","channel":"app","event":"view","pv_id":"pv-2","original_pv_id":"pv-2"}"# + "\n"
            ),
            (["track", "buy", "--value", "price=1200"], "Tracked buy on app (page pv-2).\n"),
            (["track", "buy", "--json"], #"{"ok":true,"action":"actions-track","channel":"app","event":"buy","pv_id":"pv-2"}"# + "\n"),
            (["identify", "user-42"], "Identified the person as user-42 on app (page pv-2).\n"),
            (
                ["identify", "user-42", "--values", #"{"name":"Ann"}"#, "--json"],
                #"{"ok":true,"action":"actions-identify","channel":"app","event":"identify","pv_id":"pv-2"}"# + "\n"
            ),
            (["attribute", "--value", "plan=gold", "--value", "age=30"], "Set 2 attributes on app (page pv-2).\n"),
            (
                ["attribute", "--values", #"{"plan":"gold"}"#, "--json"],
                #"{"ok":true,"action":"actions-attribute","channel":"app","event":"attribute","pv_id":"pv-2"}"# + "\n"
            ),
            (["boundary"], "Marked a screen boundary on app: page pv-3.\n"),
            (["boundary", "--json"], #"{"ok":true,"action":"actions-boundary","channel":"app","pv_id":"pv-3"}"# + "\n"),
            (["dismiss"], "Dismissed 2 actions on app.\n"),
            (["dismiss", "a1", "--json"], #"{"ok":true,"action":"actions-dismiss","channel":"app","dismissed":"2"}"# + "\n"),
            (["suppress"], "Suppressed actions on app (dismissed 1 action); undo with: attendantctl actions unsuppress\n"),
            (["suppress", "--json"], #"{"ok":true,"action":"actions-suppress","channel":"app","suppressed":"true","dismissed":"1"}"# + "\n"),
            (["unsuppress"], "Actions on app are shown again.\n"),
            (["unsuppress", "--json"], #"{"ok":true,"action":"actions-unsuppress","channel":"app","suppressed":"false"}"# + "\n"),
            (["click"], "Followed https://shop.example/sale of action a1 (opened by xdg-open); the action was closed.\n"),
            (
                ["click", "a1", "--link", "0", "--json"],
                #"{"ok":true,"action":"actions-click","channel":"app","action_id":"a1","url":"https://shop.example/sale","target":"_self","opened":"opened","detail":"opened by xdg-open","reset":"true"}"#
                    + "\n"
            ),
            (
                ["click", "a1", "--url", "https://shop.example/x"],
                "Followed https://shop.example/sale of action a1 (opened by xdg-open); the action was closed.\n"
            ),
        ]
        for (arguments, expected) in runs {
            let result = try await attendantctl(["actions"] + arguments + ["--channel", "app"], bus: bus.address)
            #expect(result.status == 0 && result.stdout == expected && result.stderr.isEmpty, "\(arguments): \(result)")
        }
        let calls = await peer.calls
        #expect(
            calls == [
                Self.request("actions-view", ["name": "pricing"]),
                Self.request("actions-view", ["name": "pricing", "title": "Pricing", "values": #"{"plan":"gold"}"#]),
                Self.request("actions-track", ["event": "buy", "values": #"{"price":1200}"#]),
                Self.request("actions-track", ["event": "buy"]),
                Self.request("actions-identify", ["user_id": "user-42"]),
                Self.request("actions-identify", ["user_id": "user-42", "values": #"{"name":"Ann"}"#]),
                Self.request("actions-attribute", ["values": #"{"plan":"gold","age":30}"#]),
                Self.request("actions-attribute", ["values": #"{"plan":"gold"}"#]),
                Self.request("actions-boundary"), Self.request("actions-boundary"),
                Self.request("actions-dismiss"), Self.request("actions-dismiss", ["action": "a1"]),
                Self.request("actions-suppress"), Self.request("actions-suppress"),
                Self.request("actions-unsuppress"), Self.request("actions-unsuppress"),
                Self.request("actions-click"),
                Self.request("actions-click", ["action": "a1", "link": "0"]),
                Self.request("actions-click", ["action": "a1", "url": "https://shop.example/x"]),
            ],
            "\(calls)"
        )
        await peer.stop()
    }

    @Test func listAndVariablesForPeopleAndScripts() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let list = try await attendantctl(["actions", "list", "--channel", "app"], bus: bus.address)
        #expect(
            list.status == 0
                && list.stdout == """
                    ID  CAMPAIGN  TITLE        LINKS
                    a1  c1        Summer sale  2
                    a2  c2        -            0
                    Suppressed: no
                    Page: pv-2 (original pv-1)
                    Visitor: vis-1

                    """,
            "\(list)"
        )
        let listJSON = try await attendantctl(["actions", "list", "--channel", "app", "--json"], bus: bus.address)
        let actions = try #require(Fixtures.actionReplies["actions-list"]?["actions"])
        #expect(
            listJSON.stdout
                == #"{"ok":true,"action":"actions-list","channel":"app","actions":"# + actions
                + #","suppressed":"false","visitor_id":"vis-1","pv_id":"pv-2","original_pv_id":"pv-1"}"# + "\n",
            "\(listJSON)"
        )
        let object = try JSONSerialization.jsonObject(with: Data(listJSON.stdout.utf8)) as? [String: Any]
        #expect((object?["actions"] as? [Any])?.count == 2, "actions is embedded as an array")

        let variables = try await attendantctl(["actions", "variables", "--fetch", "--channel", "app"], bus: bus.address)
        #expect(
            variables.stdout == """
                NAME    VALUE   CAMPAIGN
                banner  summer  c1
                limit   3       c2

                """,
            "\(variables)"
        )
        let variablesJSON = try await attendantctl(["actions", "variables", "--channel", "app", "--json"], bus: bus.address)
        #expect(
            variablesJSON.stdout
                == #"{"ok":true,"action":"actions-variables","channel":"app","variables":{"limit":{"value":3,"campaign_id":"c2","shorten_id":"s2"},"banner":{"value":"summer","campaign_id":"c1","shorten_id":"s1"}},"fetched":"true"}"#
                + "\n",
            "\(variablesJSON)"
        )

        await peer.set(
            reply: ["actions": "[]", "suppressed": "true", "visitor_id": "vis-1", "pv_id": "pv-5", "original_pv_id": "pv-5"],
            for: "actions-list"
        )
        await peer.set(reply: ["variables": "{}", "fetched": "false"], for: "actions-variables")
        let empty = try await attendantctl(["actions", "list", "--channel", "app"], bus: bus.address)
        #expect(empty.stdout == "No actions shown.\nSuppressed: yes\nPage: pv-5\nVisitor: vis-1\n", "\(empty)")
        let none = try await attendantctl(["actions", "variables", "--channel", "app"], bus: bus.address)
        #expect(none.stdout == "No variables.\n", "\(none)")
        #expect(
            await peer.calls == [
                Self.request("actions-list"), Self.request("actions-list"),
                Self.request("actions-variables", ["fetch": "true"]), Self.request("actions-variables"),
                Self.request("actions-list"), Self.request("actions-variables"),
            ]
        )
        await peer.stop()
    }

    @Test func clickThatStaysOrIsRefused() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.set(
            reply: [
                "action": "a1", "url": "https://shop.example/later", "target": "_blank", "opened": "opened", "detail": "opened by xdg-open",
                "reset": "false",
            ],
            for: "actions-click"
        )
        let stays = try await attendantctl(["actions", "click", "a1", "--link", "1", "--channel", "app"], bus: bus.address)
        #expect(
            stays.status == 0
                && stays.stdout == "Followed https://shop.example/later of action a1 (opened by xdg-open); the action stays shown (target _blank).\n",
            "\(stays)"
        )

        let refusal = [
            "action": "a1", "url": "javascript:alert(1)", "target": "_self", "opened": "refused", "detail": "only http and https URLs are opened",
            "reset": "false",
        ]
        await peer.set(reply: refusal, for: "actions-click")
        let refused = try await attendantctl(["actions", "click", "a1", "--url", "javascript:alert(1)", "--channel", "app"], bus: bus.address)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr == "attendantctl: app refused to follow javascript:alert(1) of action a1: only http and https URLs are opened\n",
            "\(refused)"
        )
        let json = try await attendantctl(["actions", "click", "a1", "--url", "javascript:alert(1)", "--channel", "app", "--json"], bus: bus.address)
        #expect(json.status == 1, "\(json)")
        #expect(
            json.stdout
                == #"{"ok":false,"action":"actions-click","channel":"app","action_id":"a1","url":"javascript:alert(1)","target":"_self","opened":"refused","detail":"only http and https URLs are opened","reset":"false"}"#
                + "\n"
        )
        await peer.stop()
    }

    /// A reply whose JSON-text field is not JSON is the daemon's fault: said so, exit status 1.
    @Test func aMalformedReplyIsAFailure() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.set(reply: ["actions": "[{", "suppressed": "false"], for: "actions-list")
        await peer.set(reply: ["variables": "[]"], for: "actions-variables")
        for arguments in [["actions", "list"], ["actions", "list", "--json"]] {
            let result = try await attendantctl(arguments + ["--channel", "app"], bus: bus.address)
            #expect(result.status == 1, "\(result)")
            #expect(
                result.stderr.hasPrefix("attendantctl: channel app answered actions-list, but its actions field is not JSON (expected"),
                "\(result)"
            )
        }
        let variables = try await attendantctl(["actions", "variables", "--channel", "app"], bus: bus.address)
        #expect(variables.status == 1 && variables.stderr.contains("its variables field is not an object"), "\(variables)")
        await peer.stop()
    }

    /// Without --channel: the only karte-actions channel among the others; none or several is a usage error.
    @Test func withoutChannelTheOnlyActionChannelIsUsed() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let none = try await attendantctl(["actions", "list"], bus: bus.address)
        #expect(none.status == 64, "\(none)")
        #expect(
            none.stderr.contains(
                "attendantd has no channel of the plugin karte-actions (its channels: desk (loopback), voice (sip)); name the in-app action channel with --channel"
            ),
            "\(none)"
        )

        await peer.set(channels: Fixtures.channels + [ChannelRecord(name: "app", plugin: "karte-actions", state: "listening")])
        let one = try await attendantctl(["actions", "boundary", "--json"], bus: bus.address)
        #expect(one.status == 0 && one.stdout == #"{"ok":true,"action":"actions-boundary","channel":"app","pv_id":"pv-3"}"# + "\n", "\(one)")

        await peer.set(
            channels: Fixtures.channels + [
                ChannelRecord(name: "app", plugin: "karte-actions", state: "listening"),
                ChannelRecord(name: "shop", plugin: "karte-actions", state: "recovering"),
            ]
        )
        let several = try await attendantctl(["actions", "view", "home"], bus: bus.address)
        #expect(several.status == 64, "\(several)")
        #expect(
            several.stderr.contains("attendantd has several channels of the plugin karte-actions (app, shop); name one with --channel"),
            "\(several)"
        )

        await peer.set(channels: [])
        let empty = try await attendantctl(["actions", "list"], bus: bus.address)
        #expect(empty.status == 64 && empty.stderr.contains("attendantd has no channels configured"), "\(empty)")

        let m = ControlInterface.Method.self
        #expect(
            await peer.calls == [
                .init(member: m.listChannels, arguments: []),
                .init(member: m.listChannels, arguments: []), Self.request("actions-boundary"),
                .init(member: m.listChannels, arguments: []),
                .init(member: m.listChannels, arguments: []),
            ]
        )
        await peer.stop()
    }

    /// --value reads numbers, booleans and JSON as JSON and anything else as text; --values merges under it.
    @Test func valuesReachTheChannelAsOneJSONObject() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let arguments = [
            "actions", "track", "buy", "--channel", "app",
            "--values", #"{"plan":"silver","items":[1,2],"note":"kept"}"#,
            "--value", "price=1200", "--value", "gift=true", "--value", "plan=gold", "--value", "zip=01234",
            "--value", #"address={"city":"Tokyo"}"#, "--value", #"quoted="30""#, "--value", "empty=", "--value", "ratio=0.5",
        ]
        let result = try await attendantctl(arguments, bus: bus.address)
        #expect(result.status == 0, "\(result)")
        let values =
            #"{"plan":"gold","items":[1,2],"note":"kept","price":1200,"gift":true,"zip":"01234","address":{"city":"Tokyo"},"quoted":"30","empty":"","ratio":0.5}"#
        #expect(await peer.calls == [Self.request("actions-track", ["event": "buy", "values": values])])
        await peer.stop()
    }

    /// The channel's refusals (InvalidArgument for a bad field name, and the others) print the
    /// channel's message and exit with status 1; --json prints the error object.
    @Test(arguments: [
        (
            ["actions", "track", "buy", "--value", "size=3"], ControlError.invalidArgument,
            #"event "buy": field "size" is refused: the name is reserved by KARTE"#
        ),
        (
            ["actions", "attribute", "--value", "a.b=1"], ControlError.invalidArgument,
            #"event "attribute": field "a.b" is refused: a field name must not contain '.'"#
        ),
        (["actions", "click"], ControlError.illegalState, "channel app: no action is shown"),
        (["actions", "variables", "--fetch"], ControlError.serverError, "channel app: KARTE answered 503"),
        (["actions", "list"], ControlError.noSuchChannel, #"no running channel "app""#),
    ])
    func refusalsBecomeTheMessageAndExitStatusOne(_ arguments: [String], _ name: String, _ message: String) async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        await peer.fail(ControlInterface.Method.channelRequest, name, message)
        let text = try await attendantctl(arguments + ["--channel", "app"], bus: bus.address)
        #expect(text.status == 1, "\(text)")
        #expect(text.stderr == "attendantctl: \(message)\n")
        #expect(text.stdout.isEmpty)
        let json = try await attendantctl(arguments + ["--channel", "app", "--json"], bus: bus.address)
        #expect(json.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "refused")
        #expect(error?["name"] as? String == name)
        #expect(error?["message"] as? String == message)
        await peer.stop()
    }
}
