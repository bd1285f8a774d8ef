import ArgumentParser
import TestSupport
import Testing

@testable import AttendantCLI

/// The command line, parsed in-process.
@Suite(.cpuBound) struct ParsingTests {
    @Test func eachCommandParsesItsArguments() throws {
        let contacts = try #require(try Attendantctl.parseAsRoot(["contacts", "--limit", "5", "--json"]) as? Attendantctl.Contacts)
        #expect(contacts.limit == 5 && contacts.output.json)

        let accept = try #require(try Attendantctl.parseAsRoot(["accept", "desk-1", "--channel", "desk"]) as? Attendantctl.Accept)
        #expect(accept.target.contact == "desk-1" && accept.target.channel == "desk" && !accept.output.json)

        let decline = try #require(try Attendantctl.parseAsRoot(["decline", "desk-2"]) as? Attendantctl.Decline)
        #expect(decline.target.contact == "desk-2" && decline.target.channel == nil)

        let renew = try #require(try Attendantctl.parseAsRoot(["token", "renew", "voice"]) as? Attendantctl.Token.Renew)
        #expect(renew.channel == "voice")

        let on = try #require(try Attendantctl.parseAsRoot(["dnd", "on"]) as? Attendantctl.DoNotDisturb)
        #expect(on.state == .on)
        let show = try #require(try Attendantctl.parseAsRoot(["dnd"]) as? Attendantctl.DoNotDisturb)
        #expect(show.state == nil)

        let health = try #require(try Attendantctl.parseAsRoot(["health", "--token-warning", "2h"]) as? Attendantctl.Health)
        #expect(health.tokenWarning.seconds == 7200)
        let defaults = try #require(try Attendantctl.parseAsRoot(["health"]) as? Attendantctl.Health)
        #expect(defaults.tokenWarning.seconds == 900)

        #expect(try Attendantctl.parseAsRoot([]) is Attendantctl.Status)
        let monitor = try #require(try Attendantctl.parseAsRoot(["monitor", "--json", "--wait"]) as? Attendantctl.Monitor)
        #expect(monitor.wait && monitor.output.json)
        #expect((try Attendantctl.parseAsRoot(["monitor"]) as? Attendantctl.Monitor)?.wait == false)
        #expect(try Attendantctl.parseAsRoot(["reload"]) is Attendantctl.Reload)
        #expect(try Attendantctl.parseAsRoot(["channels"]) is Attendantctl.Channels)
    }

    @Test func eachChatCommandParsesItsArguments() throws {
        typealias C = Attendantctl.Chat
        let prepare = try #require(try Attendantctl.parseAsRoot(["chat", "prepare", "--channel", "web", "--json"]) as? C.Prepare)
        #expect(prepare.chat.channel == "web" && prepare.output.json)
        // --channel before the subcommand, as `attendantctl chat --channel web send hi` is typed.
        let before = try #require(try Attendantctl.parseAsRoot(["chat", "--channel", "web", "send", "hi"]) as? C.Send)
        #expect(before.chat.channel == "web")
        let both = try #require(try Attendantctl.parseAsRoot(["chat", "--channel", "web", "send", "--channel", "app", "hi"]) as? C.Send)
        #expect(both.chat.channel == "app", "the one nearer the command wins")
        let connect = try #require(try Attendantctl.parseAsRoot(["chat", "connect"]) as? C.Connect)
        #expect(connect.chat.channel == nil && !connect.output.json)
        let view = try #require(try Attendantctl.parseAsRoot(["chat", "view", "Pricing", "https://example.test/p"]) as? C.View)
        #expect(view.title == "Pricing" && view.url == "https://example.test/p")
        let threads = try #require(try Attendantctl.parseAsRoot(["chat", "threads", "--json"]) as? C.Threads)
        #expect(threads.output.json)
        let open = try #require(try Attendantctl.parseAsRoot(["chat", "open", "t1", "--channel", "web"]) as? C.Open)
        #expect(open.thread == "t1" && open.chat.channel == "web")
        let create = try #require(
            try Attendantctl.parseAsRoot(["chat", "create", "--field", "topic=billing", "--field", "note=a=b", "--field", "empty="]) as? C.Create
        )
        #expect(try create.customFields() == ["topic": "billing", "note": "a=b", "empty": ""])
        #expect(try (Attendantctl.parseAsRoot(["chat", "create"]) as? C.Create)?.customFields() == [:])
        let send = try #require(try Attendantctl.parseAsRoot(["chat", "send", "Hello", "there", "--thread", "t1"]) as? C.Send)
        #expect(send.text == "Hello there" && send.thread == "t1")
        let quoted = try #require(try Attendantctl.parseAsRoot(["chat", "send", "Hello there"]) as? C.Send)
        #expect(quoted.text == "Hello there" && quoted.thread == nil)
        let end = try #require(try Attendantctl.parseAsRoot(["chat", "end", "--thread", "t2"]) as? C.End)
        #expect(end.thread == "t2")
        #expect((try Attendantctl.parseAsRoot(["chat", "end"]) as? C.End)?.thread == nil)
        let typing = try #require(try Attendantctl.parseAsRoot(["chat", "typing", "stopped", "--thread", "t1"]) as? C.Typing)
        #expect(typing.state == "stopped" && typing.thread == "t1")
        let nickname = try #require(try Attendantctl.parseAsRoot(["chat", "nickname", "Amazing Grace", "--channel", "gms"]) as? C.Nickname)
        #expect(nickname.nickname == "Amazing Grace" && nickname.chat.channel == "gms")
        let push = try #require(try Attendantctl.parseAsRoot(["chat", "push-url", "https://shop.example/7"]) as? C.PushURL)
        #expect(push.url == "https://shop.example/7")
        let notice = try #require(try Attendantctl.parseAsRoot(["chat", "notice", "order 7", "--json"]) as? C.Notice)
        #expect(notice.text == "order 7" && notice.output.json)
    }

    @Test(arguments: [
        ["chat", "frobnicate"],
        ["chat", "prepare", "--channel", ""],
        ["chat", "prepare", "extra"],
        ["chat", "view", "Pricing"],
        ["chat", "view", "Pricing", ""],
        ["chat", "open"],
        ["chat", "open", ""],
        ["chat", "create", "--field", "topic"],
        ["chat", "create", "--field", "=billing"],
        ["chat", "create", "--field", "a=1", "--field", "a=2"],
        ["chat", "send"],
        ["chat", "send", ""],
        ["chat", "send", "hi", "--thread", ""],
        ["chat", "end", "t1"],
        ["chat", "end", "--thread", ""],
        ["chat", "threads", "--thread", "t1"],
        ["chat", "typing", "maybe"],
        ["chat", "nickname"],
        ["chat", "nickname", ""],
        ["chat", "push-url", "ftp://shop.example"],
        ["chat", "push-url"],
        ["chat", "notice", ""],
    ])
    func badChatInputIsAUsageError(_ arguments: [String]) {
        do {
            let command = try Attendantctl.parseAsRoot(arguments)
            Issue.record("parsed \(arguments) as \(command)")
        } catch {
            #expect(Attendantctl.exitCode(for: error) == .validationFailure, "\(error)")
        }
    }

    @Test(arguments: [
        ["contacts", "--limit", "0"],
        ["contacts", "--limit", "-1"],
        ["accept"],
        ["accept", ""],
        ["accept", "c1", "--channel", ""],
        ["dnd", "maybe"],
        ["token", "renew"],
        ["health", "--token-warning", "soon"],
        ["health", "--token-warning", "15x"],
        ["frobnicate"],
    ])
    func badInputIsAUsageError(_ arguments: [String]) {
        do {
            let command = try Attendantctl.parseAsRoot(arguments)
            Issue.record("parsed \(arguments) as \(command)")
        } catch {
            #expect(Attendantctl.exitCode(for: error) == .validationFailure, "\(error)")
        }
    }

    @Test func durations() {
        #expect(DurationArgument(argument: "900")?.seconds == 900)
        #expect(DurationArgument(argument: "90s")?.seconds == 90)
        #expect(DurationArgument(argument: "15m")?.seconds == 900)
        #expect(DurationArgument(argument: "1d")?.seconds == 86400)
        #expect(DurationArgument(argument: "m") == nil)
        #expect(DurationArgument(argument: "9999999999999999999h") == nil)
    }

    @Test func completionScriptsKnowTheCommands() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = Attendantctl.completionScript(for: CompletionShell(rawValue: shell)!)
            for command in [
                "status", "channels", "contacts", "accept", "decline", "token", "renew", "reload", "dnd", "monitor", "health", "metrics",
                "chat", "prepare", "connect", "view", "threads", "open", "create", "send", "end",
                "actions", "track", "identify", "attribute", "boundary", "list", "click", "dismiss", "suppress", "unsuppress", "variables",
            ] {
                #expect(script.contains(command), "\(shell) completion lacks \(command)")
            }
        }
    }
}
