import ArgumentParser
import TestSupport
import Testing

@testable import AttendantCLI

/// The in-app action commands, parsed in-process.
@Suite(.cpuBound) struct ActionsParsingTests {
    typealias A = Attendantctl.Actions

    @Test func eachCommandParsesItsArguments() throws {
        let view = try #require(
            try Attendantctl.parseAsRoot(["actions", "view", "pricing", "--title", "Pricing", "--channel", "app", "--json"]) as? A.View
        )
        #expect(view.name == "pricing" && view.title == "Pricing" && view.actions.channel == "app" && view.output.json)
        #expect(try view.values.text() == nil)
        let first = try #require(try Attendantctl.parseAsRoot(["actions", "--channel", "app", "list"]) as? A.List)
        #expect(first.actions.channel == "app", "--channel before the subcommand")
        let track = try #require(try Attendantctl.parseAsRoot(["actions", "track", "buy", "--value", "price=1200"]) as? A.Track)
        #expect(track.event == "buy" && track.actions.channel == nil)
        #expect(try track.values.text() == #"{"price":1200}"#)
        let identify = try #require(try Attendantctl.parseAsRoot(["actions", "identify", "user-42"]) as? A.Identify)
        #expect(identify.userID == "user-42")
        let attribute = try #require(try Attendantctl.parseAsRoot(["actions", "attribute", "--values", #"{"plan":"gold"}"#]) as? A.Attribute)
        #expect(try attribute.values.text() == #"{"plan":"gold"}"#)
        let click = try #require(try Attendantctl.parseAsRoot(["actions", "click", "a1", "--link", "2"]) as? A.Click)
        #expect(click.action == "a1" && click.link == 2 && click.url == nil)
        let bare = try #require(try Attendantctl.parseAsRoot(["actions", "click"]) as? A.Click)
        #expect(bare.action == nil && bare.link == nil)
        #expect((try Attendantctl.parseAsRoot(["actions", "dismiss", "a2"]) as? A.Dismiss)?.action == "a2")
        #expect((try Attendantctl.parseAsRoot(["actions", "dismiss"]) as? A.Dismiss)?.action == nil)
        #expect((try Attendantctl.parseAsRoot(["actions", "variables", "--fetch"]) as? A.Variables)?.fetch == true)
        #expect((try Attendantctl.parseAsRoot(["actions", "variables"]) as? A.Variables)?.fetch == false)
        #expect(try Attendantctl.parseAsRoot(["actions", "list"]) is A.List)
        #expect(try Attendantctl.parseAsRoot(["actions", "suppress"]) is A.Suppress)
        #expect(try Attendantctl.parseAsRoot(["actions", "unsuppress"]) is A.Unsuppress)
        #expect(try Attendantctl.parseAsRoot(["actions", "boundary"]) is A.Boundary)
    }

    /// A value is JSON when it parses as JSON, and otherwise the text itself.
    @Test(arguments: [
        ("age=30", "age", JSON.int(30)),
        ("ratio=-2.5e3", "ratio", .double(-2500)),
        ("member=true", "member", .bool(true)),
        ("member=false", "member", .bool(false)),
        ("gone=null", "gone", .null),
        ("plan=gold", "plan", .string("gold")),
        (#"plan="gold""#, "plan", .string("gold")),
        (#"code="007""#, "code", .string("007")),
        ("code=007", "code", .string("007")),
        ("empty=", "empty", .string("")),
        ("equation=a=b", "equation", .string("a=b")),
        ("tags=[1,\"two\"]", "tags", .array([.int(1), .string("two")])),
        (#"address={"city":"Tokyo","zip":null}"#, "address", .object([("city", .string("Tokyo")), ("zip", .null)])),
        ("sentence=hello world", "sentence", .string("hello world")),
        ("card=12345678901234567890123", "card", .string("12345678901234567890123")),
        ("big=1.5e300", "big", .double(1.5e300)),
        ("half={\"a\":", "half", .string("{\"a\":")),
    ])
    func valuePairs(_ pair: String, _ key: String, _ value: JSON) throws {
        let (parsedKey, parsedValue) = try ActionValues.pair(pair)
        #expect(parsedKey == key && parsedValue == value, "\(pair) → \(parsedKey) = \(parsedValue.text)")
    }

    @Test func valueWinsOverValues() throws {
        let command = try #require(
            try Attendantctl.parseAsRoot(["actions", "track", "buy", "--values", #"{"a":1,"b":2}"#, "--value", "b=3", "--value", "c=x"]) as? A.Track
        )
        #expect(try command.values.text() == #"{"a":1,"b":3,"c":"x"}"#)
    }

    @Test(arguments: [
        ["actions", "frobnicate"],
        ["actions", "view"],
        ["actions", "view", ""],
        ["actions", "view", "home", "--channel", ""],
        ["actions", "view", "home", "--value", "plan"],
        ["actions", "view", "home", "--value", "=gold"],
        ["actions", "view", "home", "--value", "a=1", "--value", "a=2"],
        ["actions", "view", "home", "--values", "[1]"],
        ["actions", "view", "home", "--values", "plan=gold"],
        ["actions", "view", "home", "--values", #"{"":1}"#],
        ["actions", "track"],
        ["actions", "track", ""],
        ["actions", "identify"],
        ["actions", "identify", ""],
        ["actions", "attribute"],
        ["actions", "attribute", "--values", "{}"],
        ["actions", "click", ""],
        ["actions", "click", "--link", "-1"],
        ["actions", "click", "--link", "x"],
        ["actions", "click", "--url", ""],
        ["actions", "click", "--link", "0", "--url", "https://shop.example"],
        ["actions", "dismiss", ""],
        ["actions", "list", "a1"],
        ["actions", "suppress", "now"],
        ["actions", "boundary", "--value", "a=1"],
    ])
    func badInputIsAUsageError(_ arguments: [String]) {
        do {
            let command = try Attendantctl.parseAsRoot(arguments)
            Issue.record("parsed \(arguments) as \(command)")
        } catch {
            #expect(Attendantctl.exitCode(for: error) == .validationFailure, "\(error)")
        }
    }
}
