import ArgumentParser
@testable import AttendantCLI
import Testing

/// The command line, parsed in-process.
@Suite struct ParsingTests {
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
            for command in ["status", "channels", "contacts", "accept", "decline", "token", "renew", "reload", "dnd", "monitor", "health"] {
                #expect(script.contains(command), "\(shell) completion lacks \(command)")
            }
        }
    }
}
