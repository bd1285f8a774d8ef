import AttendantCLI
import Testing

/// `JSON.parse`, which reads --values and the JSON-text fields of in-app action replies.
@Suite struct JSONParseTests {
    @Test func readsEveryKindOfValueAndWritesItBackTheSame() throws {
        let text = #"{"s":"quote \" backslash \\ tab \t é 🙂","n":[0,-3,1.5,-0.25,9223372036854775807],"b":[true,false,null],"o":{"z":{},"a":[]}}"#
        let value = try JSON.parse(text)
        #expect(value.text == text)
        #expect(value["s"]?.stringValue == "quote \" backslash \\ tab \t é 🙂")
        #expect(value["n"] == .array([.int(0), .int(-3), .double(1.5), .double(-0.25), .int(.max)]))
        #expect(value["o"]?.members?.map(\.0) == ["z", "a"], "keys keep their order")
        #expect(value["missing"] == nil && JSON.int(1)["a"] == nil)
    }

    @Test func escapesWhiteSpaceAndBigNumbers() throws {
        #expect(try JSON.parse(#""\u00e9\ud83d\ude42\/\n""#) == .string("é🙂/\n"))
        #expect(try JSON.parse(#""\ud800x""#) == .string("\u{FFFD}x"), "a lone surrogate")
        #expect(try JSON.parse(" \n\t[ 1 , 2 ]\r\n") == .array([.int(1), .int(2)]))
        #expect(try JSON.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSON.parse("1E2") == .double(100))
    }

    @Test(arguments: [
        ("", 1), ("nul", 1), ("[1,]", 4), ("{\"a\" 1}", 6), ("{\"a\":1,}", 8), ("{a:1}", 2), ("01", 1), ("1.", 3), ("-", 1),
        ("\"open", 6), ("\"tab\there\"", 5), ("\"\\x\"", 3), ("\"\\u12\"", 4), ("[1] 2", 5), ("1e400", 1), ("[[[", 4),
    ])
    func refusesWhatIsNotJSON(_ text: String, _ position: Int) {
        let error = #expect(throws: JSON.ParseError.self, "\(text)") { try JSON.parse(text) }
        #expect(error?.position == position, "\(text): \(String(describing: error))")
    }

    @Test func nestingIsBounded() throws {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(String(repeating: "[", count: 10_000)) }
        #expect(try JSON.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).text.count == 200)
    }
}
