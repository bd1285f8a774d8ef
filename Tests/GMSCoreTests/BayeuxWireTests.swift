import AttendantPluginKit
import GMSCore
import Testing

@Suite struct BayeuxWireTests {
    static func decode(_ text: String) throws -> [BayeuxMessage] {
        try BayeuxBatch.decode(Array(text.utf8))
    }

    @Test func readsFayesHandshakeReply() throws {
        // As Faye 1.4 answered on this machine (gms-cometd.md §3).
        let messages = try Self.decode(
            #"[{"id":"1","channel":"/meta/handshake","successful":true,"version":"1.0","supportedConnectionTypes":["long-polling","cross-origin-long-polling","callback-polling","websocket","eventsource","in-process"],"clientId":"7t7ci","advice":{"reconnect":"retry","interval":0,"timeout":25000}}]"#
        )
        #expect(messages.count == 1)
        let reply = try #require(messages.first)
        #expect(reply.channel == "/meta/handshake")
        #expect(reply.isReply && reply.successful == true)
        #expect(reply.clientID == "7t7ci")
        #expect(reply.supportedConnectionTypes?.contains("websocket") == true)
        #expect(reply.advice == BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(25)))
    }

    @Test func anEventThatCarriesItsPublishersIDIsNotAReply() throws {
        let messages = try Self.decode(
            #"[{"id":"2","clientId":"c","channel":"/meta/connect","successful":true},{"channel":"/chat/demo","data":{"text":"hi"},"id":"6"}]"#
        )
        #expect(messages.map(\.isReply) == [true, false])
        #expect(messages[1].data?["text"]?.stringValue == "hi")
    }

    @Test func acceptsASingleMessageAndNumericIDsAndSubscriptionLists() throws {
        let single = try Self.decode(
            #"{"channel":"/meta/subscribe","id":7,"successful":false,"error":"403:/service/x:Forbidden channel","subscription":["/a","/b"]}"#
        )
        #expect(single.count == 1)
        #expect(single[0].id == "7")
        #expect(single[0].errorCode == 403)
        #expect(single[0].subscription == ["/a", "/b"])
    }

    @Test func errorsNameTheProblemAndNeverTheContent() {
        let secret = "my-card-number-4111"
        let cases: [(String, String)] = [
            ("not json \(secret)", "not JSON"),
            (#""\#(secret)""#, "is a string"),
            (#"[{"channel":"/x"},{"channel":5}]"#, "message 2 of 2: field \"channel\" is a number"),
            (#"[{"channel":"/x","clientId":["\#(secret)"]}]"#, "field \"clientId\" is an array"),
            (#"[{"channel":"/x","ext":"\#(secret)"}]"#, "field \"ext\" is a string"),
            (#"[{"data":"\#(secret)"}]"#, "field \"channel\" is missing"),
        ]
        for (input, expected) in cases {
            #expect(throws: BayeuxDecodeError.self) { try Self.decode(input) }
            do {
                _ = try Self.decode(input)
            } catch let error as BayeuxDecodeError {
                #expect(error.problem.contains(expected), "\(error.problem)")
                #expect(!error.problem.contains(secret), "the error shows content: \(error.problem)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func oversizedBatchesAreRefusedBeforeParsing() {
        let limits = BayeuxBatch.Limits(maximumBytes: 100, maximumMessages: 2)
        let long = Array(("[" + String(repeating: " ", count: 200) + "]").utf8)
        #expect(throws: BayeuxDecodeError.self) { try BayeuxBatch.decode(long, limits: limits) }
        let many = Array(#"[{"channel":"/a"},{"channel":"/b"},{"channel":"/c"}]"#.utf8)
        #expect(throws: BayeuxDecodeError(problem: "the batch has 3 messages, over the limit of 2")) {
            try BayeuxBatch.decode(many, limits: limits)
        }
    }

    @Test func encodesWhatItDecodes() throws {
        var message = BayeuxMessage(channel: "/meta/disconnect", id: "4", clientID: "71k6", ext: ["transcriptPosition": .string("4")])
        message.advice = BayeuxAdvice(timeout: .zero)
        message.subscription = ["/_genesys"]
        let decoded = try BayeuxBatch.decode(BayeuxBatch.encode([message]))
        #expect(decoded == [message])
        // The seed's background disconnect: the position is a string.
        #expect(message.json["ext"]?["transcriptPosition"] == .string("4"))
    }

    @Test func adviceMergesOverDefaultsAndIgnoresWrongTypes() {
        let defaults = BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(60), maxInterval: .seconds(10))
        let received = BayeuxAdvice(decoding: ["reconnect": .string("handshake"), "timeout": .string("soon"), "interval": .number(500)])
        #expect(received == BayeuxAdvice(reconnect: .handshake, interval: .milliseconds(500)))
        #expect(
            defaults.merging(received)
                == BayeuxAdvice(reconnect: .handshake, interval: .milliseconds(500), timeout: .seconds(60), maxInterval: .seconds(10))
        )
    }
}
