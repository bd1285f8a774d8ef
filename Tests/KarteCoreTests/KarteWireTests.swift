import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Testing

@Suite struct KarteWireTests {
    @Test func bodyEncodingIsExactAndOrdered() {
        let keys = KarteKeys(visitorID: "V", pvID: "P", originalPVID: "O")
        let events = [
            KarteRecordedEvent(
                event: KarteEvent(name: "view", values: ["view_name": "home", "title": "Home"]),
                keys: keys,
                date: UnixTime(secondsSince1970: 1_700_000_000)
            ),
            KarteRecordedEvent(
                event: KarteEvent(name: "buy", values: ["price": 1.5]),
                keys: keys,
                date: UnixTime(secondsSince1970: 1_700_000_000.25)
            ),
        ]
        let body = KarteTrackBody(keys: keys, appInfo: Fixtures.appInfo, events: events)
        #expect(
            body.json.text
                == #"{"app_info":{"karte_sdk_version":"0.1.0","module_info":{"core":"0.1.0","in_app_messaging":"0.1.0"},"#
                + #""system_info":{"bundle_id":"io.attendant","device":"desktop","language":"ja-JP","model":"","os":"Linux","os_version":"6.8","#
                + #""screen":{"height":1080,"width":1920}},"version_code":"1","version_name":"1.0"},"#
                + #""events":[{"event_name":"view","values":{"_local_event_date":1700000000,"title":"Home","view_name":"home"}},"#
                + #"{"event_name":"buy","values":{"_local_event_date":1700000000.25,"price":1.5}}],"#
                + #""keys":{"original_pv_id":"O","pv_id":"P","visitor_id":"V"}}"#
        )
        let retried = KarteTrackBody(keys: keys, appInfo: Fixtures.appInfo, events: [events[1]], retry: true)
        #expect(retried.json["events"]?.arrayValue?[0]["values"]?["_retry"] == .bool(true))
    }

    @Test func fieldNamesAreValidatedAsTheSDKsDo() throws {
        for name in ["size", "type", "_source", "v"] {
            let error = #expect(throws: KarteFieldError.self) { try KarteEvent(name: "buy", values: [name: 1]).validate() }
            #expect(error?.field == name)
            #expect(error?.description.contains("reserved") == true)
        }
        let dotted = #expect(throws: KarteFieldError.self) { try KarteEvent(name: "buy", values: ["a.b": 1]).validate() }
        #expect(dotted?.field == "a.b")
        #expect(dotted?.description == #"event "buy": field "a.b" is refused: a field name must not contain '.'"#)
        let dollar = #expect(throws: KarteFieldError.self) { try KarteEvent(name: "buy", values: ["$x": 1]).validate() }
        #expect(dollar?.field == "$x")
        #expect(throws: KarteFieldError.self) { try KarteEvent(name: "").validate() }
        // Nested objects are the application's own, and a name merely containing a reserved word is fine.
        try KarteEvent(name: "buy", values: ["item": .object(["size": 3]), "sizes": 2, "x$": 1]).validate()
    }

    @Test func responseDecodesMessagesAndKeepsUnknownFields() throws {
        let response = try KarteTrackResponse.decode(Array(Fixtures.responseText.utf8))
        #expect(response.success && response.status == 200)
        #expect(response.messages.count == 1)
        let message = response.messages[0]
        #expect(message.actionID == "a1" && message.campaignID == "c1" && message.shortenID == "s1")
        #expect(message.campaign.displayLimitMode)
        #expect(message.action.json["widget_extra"] == .string("kept"))
        #expect(message.json["unknown_top"] == .number(7))
        // The envelope's unread fields are listed by path (an action's widget fields are not).
        #expect(response.unknownFields == ["response.messages[0].unknown_top"])
        #expect(response.options["user_id"] == .string("vis-1"))
        let content = KarteActionContent(content: message.action.content)
        #expect(
            content
                == KarteActionContent(
                    title: "Sale",
                    body: "Half price",
                    links: [
                        .init(label: "Open", url: "https://example.com/x", target: "_blank"),
                        .init(label: "https://example.com/y", url: "https://example.com/y"),
                    ]
                )
        )
    }

    @Test func errorBodiesDecode() throws {
        let response = try KarteTrackResponse.decode(Array(#"{"success":0,"status":400,"error":"invalid request"}"#.utf8))
        #expect(!response.success && response.status == 400 && response.error == "invalid request" && response.messages.isEmpty)
    }

    @Test func decodingErrorsNameTheProblemNotTheContent() {
        let secret = "SECRET-CONTENT"
        let notJSON = #expect(throws: KarteDecodeError.self) { try KarteTrackResponse.decode(Array("<html>\(secret)".utf8)) }
        #expect(notJSON?.description == "the response (20 bytes) is not JSON: unexpected character at byte 0")
        let wrongShape = #expect(throws: KarteDecodeError.self) {
            try KarteTrackResponse.decode(Array(#"{"success":1,"status":200,"response":{"messages":[{"action":"\#(secret)","campaign":{}}]}}"#.utf8))
        }
        #expect(wrongShape?.description == #"field "response.messages[0].action" is a string, expected an object"#)
        let wrongType = #expect(throws: KarteDecodeError.self) {
            try KarteTrackResponse.decode(
                Array(
                    #"{"success":1,"status":200,"response":{"messages":[{"action":{},"campaign":{"native_app_display_limit_mode":"\#(secret)"}}]}}"#
                        .utf8
                )
            )
        }
        #expect(wrongType?.description == #"field "response.messages[0].campaign.native_app_display_limit_mode" is a string, expected a boolean"#)
        let missing = #expect(throws: KarteDecodeError.self) { try KarteTrackResponse.decode(Array(#"{"success":1}"#.utf8)) }
        #expect(missing?.description == #"field "status" is missing, expected an integer"#)
        let topLevel = #expect(throws: KarteDecodeError.self) { try KarteTrackResponse.decode(Array("[1]".utf8)) }
        #expect(topLevel?.description == #"field "(top level)" is an array, expected an object"#)
        let big = Array(repeating: UInt8(ascii: " "), count: 2048)
        let oversized = #expect(throws: KarteDecodeError.self) { try KarteTrackResponse.decode(big, sizeLimit: 1024) }
        #expect(oversized?.description == "the response is 2048 bytes, more than the limit of 1024")
        for error in [notJSON, wrongShape, wrongType] { #expect(error?.description.contains(secret) == false) }
    }

    @Test func responseTimestampsParseInTheirVariants() {
        let base = 1_574_561_112.0  // 2019-11-24T02:05:12Z
        #expect(KarteTimestamp.parse("2019-11-24T02:05:12.616Z")?.secondsSince1970 == base + 0.616)
        #expect(KarteTimestamp.parse("2019-11-24T02:05:12Z")?.secondsSince1970 == base)
        #expect(KarteTimestamp.parse("2019-11-24T11:05:12.616+09:00")?.secondsSince1970 == base + 0.616)
        #expect(KarteTimestamp.parse("2019-11-24T11:05:12+0900")?.secondsSince1970 == base)
        #expect(KarteTimestamp.parse("2019-11-23T21:05:12-05")?.secondsSince1970 == base)
        for bad in ["", "2019-11-24", "2019-11-24T02:05:12", "2019-11-24T02:05:12.Z", "2019-13-24T02:05:12Z", "2019-11-24T02:05:12Zjunk"] {
            #expect(KarteTimestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func contentFallsBackToTheHTMLText() {
        let content = KarteActionContent(content: [
            "html": "<div class=\"x\"><style>.x{color:red}</style><p>Hello &amp; <b>welcome</b></p><SCRIPT>alert(1)</SCRIPT>\n back</div>",
            "links": [["label": "no url"], "junk"],
        ])
        #expect(content.title == KarteActionContent.defaultTitle)
        #expect(content.body == "Hello & welcome back")
        #expect(content.links.isEmpty)
        #expect(KarteActionContent(content: ["title": 3]).title == KarteActionContent.defaultTitle)
    }
}
