import AttendantPluginKit
import GenesysCore
import Testing

/// Bad input of each kind is refused with a named error, never a crash, and the error never quotes a
/// value (tokens, JWTs and conversation text travel in these documents).
@Suite struct GenesysMalformedInputTests {
    static let secret = "tok-4111-1111"

    static func frameError(_ text: String) -> GenesysWireError? {
        do {
            _ = try GenesysServerFrame(decoding: Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(
        arguments: [
            // (frame, kind, what the message must say)
            (
                #"{"type":"response","class":"SessionResponse","code":200,"body":{"connected":"tok-4111-1111"}}"#, "wrong type",
                #"field "body.connected" is a string, expected a boolean"#
            ),
            (#"{"type":"response","class":"SessionResponse","code":200,"body":{}}"#, "missing field", #"field "body.connected" is missing"#),
            (
                #"{"type":"response","class":"SessionResponse","code":"200","body":{"connected":true}}"#, "wrong type",
                #"field "code" is a string, expected an integer"#
            ),
            (
                #"{"type":"response","class":"SessionResponse","code":200.5,"body":{"connected":true}}"#, "bad value",
                #"field "code" is not a whole number"#
            ),
            (#"{"class":"SessionResponse","code":200,"body":{"connected":true}}"#, "missing field", #"field "type" is missing"#),
            (#"{"type":"message","code":200,"body":{}}"#, "missing field", #"field "class" is missing"#),
            (
                #"{"type":"message","class":"tok-4111-1111","code":200,"body":{}}"#, "unknown class",
                #"field "class" names a class the SDK does not know"#
            ),
            (
                #"{"type":"response","class":"string","code":4006,"body":{"tok-4111-1111":1}}"#, "wrong type",
                #"field "body" is an object, expected a string"#
            ),
            (
                #"{"type":"response","class":"JwtResponse","code":200,"body":{"jwt":["tok-4111-1111"]}}"#, "wrong type",
                #"field "body.jwt" is an array, expected a string"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Text","direction":"Sideways"}}"#, "bad value",
                #"field "body.direction" is neither Inbound nor Outbound"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Video","direction":"Outbound"}}"#, "bad value",
                #"field "body.type" is not one of Text, Event, Structured"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Text","direction":"Outbound","content":[{"contentType":"Attachment","attachment":{"id":"a","url":5}}]}}"#,
                "wrong type", #"field "body.content[0].attachment.url" is a number, expected a string"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Event","direction":"Outbound","events":[{"eventType":"Presence","presence":{"type":"Vanish"}}]}}"#,
                "bad value", #"field "body.events[0].presence.type" is not one of Join"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Text","direction":"Outbound","metadata":{"readOnly":true}}}"#,
                "wrong type", #"field "body.metadata.readOnly" is a boolean, expected a string"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Structured","direction":"Outbound","content":[{"contentType":"Card","card":{"title":"t","description":"d"}}]}}"#,
                "missing field", #"field "body.content[0].card.actions" is missing"#
            ),
            (
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"i","type":"Text","direction":"Outbound","content":{}}}"#,
                "wrong type", #"field "body.content" is an object, expected an array"#
            ),
            (
                #"{"type":"response","class":"TooManyRequestsErrorMessage","code":429,"body":{"retryAfter":3,"errorCode":4029}}"#, "missing field",
                #"field "body.errorMessage" is missing"#
            ),
            (
                #"{"type":"response","class":"PresignedUrlResponse","code":200,"body":{"attachmentId":"a","url":"u"}}"#, "missing field",
                #"field "body.headers" is missing"#
            ),
            (#"["tok-4111-1111"]"#, "wrong type", "the document is an array, expected an object"),
            (
                #"{"type":"message","class":"LogoutEvent","code":200,"body":"tok-4111-1111"}"#, "wrong type",
                #"field "body" is a string, expected an object"#
            ),
            ("tok-4111-1111", "not JSON", "the frame is not JSON"),
            (#"{"type":"message","class":"LogoutEvent","code":200,"body":{}} trailing"#, "not JSON", "text after the JSON value"),
        ]
    )
    func aBadFrameIsRefusedWithANamedError(frame: String, kind: String, says: String) throws {
        let error = try #require(Self.frameError(frame))
        #expect(error.kind.name == kind)
        #expect(error.description.contains(says), "\(error)")
        #expect(!error.description.contains(Self.secret), "\(error)")
    }

    @Test func anOversizeFrameIsRefusedBeforeItIsParsed() throws {
        let text =
            #"{"type":"response","class":"string","code":5000,"body":""# + String(repeating: "x", count: GenesysWireLimits.frame.maximumBytes)
            + #""}"#
        let error = try #require(Self.frameError(text))
        #expect(error.kind == .tooLarge)
        #expect(error.description.contains("more than the limit of 1048576"))
        // A smaller limit applies to what it is given.
        let small = GenesysWireLimits(maximumBytes: 10)
        #expect(throws: GenesysWireError.self) {
            try GenesysServerFrame(decoding: Array(#"{"type":"x","code":1,"class":"LogoutEvent","body":{}}"#.utf8), limits: small)
        }
    }

    @Test func deepNestingIsRefused() throws {
        // Deeper than our limit but within JSONValue's own…
        let ours = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let error = try #require(Self.frameError(#"{"type":"message","class":"LogoutEvent","code":200,"body":{},"extra":"# + ours + "}"))
        #expect(error.kind == .tooDeep)
        // …and far deeper than the parser goes.
        let deep = String(repeating: #"{"a":"#, count: 100_000)
        #expect(Self.frameError(deep)?.kind == .tooDeep)
        // Depth of the real frames is far from the limit: the deepest fixture decodes.
        #expect(
            Self.frameError(
                #"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"c","type":"Structured","direction":"Outbound","content":[{"contentType":"Carousel","carousel":{"cards":[{"title":"1","description":"d","defaultAction":{"type":"Link","text":"o","url":"u"},"actions":[{"type":"Link","text":"Open","url":"http://example.org"}]}]}}]}}"#
            ) == nil
        )
    }

    @Test func badRequestsHistoryAndConfigAreRefusedToo() {
        #expect(throws: GenesysWireError.self) { try GenesysRequest(decoding: Array(#"{"token":"t","action":"teleport"}"#.utf8)) }
        #expect(throws: GenesysWireError.self) { try GenesysRequest(decoding: Array(#"{"action":"echo"}"#.utf8)) }
        #expect(throws: GenesysWireError.self) {
            try GenesysRequest(decoding: Array(#"{"token":"t","action":"onMessage","message":{"type":"Text"}}"#.utf8))
        }
        #expect(throws: GenesysWireError.self) {
            try GenesysHistoryPage(decoding: Array(#"{"entities":[],"pageSize":"25","pageNumber":1,"total":0,"pageCount":0}"#.utf8))
        }
        #expect(throws: GenesysWireError.self) {
            try GenesysHistoryPage(decoding: Array(#"{"entities":[{"id":"x"}],"pageSize":25,"pageNumber":1,"total":1,"pageCount":1}"#.utf8))
        }
        #expect(throws: GenesysWireError.self) { try GenesysDeploymentConfig(decoding: Array(#"{"id":"d","status":"Active"}"#.utf8)) }
        #expect(throws: GenesysWireError.self) { try GenesysAuthBodies.AuthJwt(decoding: Array(#"{"refreshToken":"r"}"#.utf8)) }
    }

    @Test func randomBytesNeverCrash() {
        // A deterministic sweep of truncations and byte flips of a real frame: each gives a frame or an error.
        let frame = Array(
            #"{"type":"message","class":"StructuredMessage","code":200,"body":{"direction":"Outbound","id":"msg_id","type":"Structured","text":"Hi","content":[{"contentType":"QuickReply","quickReply":{"text":"a","payload":"b"}}],"events":[{"eventType":"Presence","presence":{"type":"Join"}}]}}"#
                .utf8
        )
        var decoded = 0
        var refused = 0
        for cut in 0...frame.count {
            if (try? GenesysServerFrame(decoding: frame[..<cut])) != nil { decoded += 1 } else { refused += 1 }
        }
        for index in frame.indices {
            for replacement: UInt8 in [0x00, 0x22, 0x7B, 0x5D, 0xFF] {
                var mutated = frame
                mutated[index] = replacement
                if (try? GenesysServerFrame(decoding: mutated)) != nil { decoded += 1 } else { refused += 1 }
            }
        }
        #expect(decoded + refused == frame.count + 1 + frame.count * 5)
        #expect(decoded >= 1 && refused > frame.count)
    }
}
