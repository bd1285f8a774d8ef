import AttendantPluginKit
import GMSCore
import Testing

@Suite struct GMSChatWireTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func readsAV2ReplyWithItsKeysAndRows() throws {
        // The shape of GMSLibrary's ChatV2Response (gms-cometd.md §2).
        let reply = try GMSChatV2Reply(
            decoding: Self.json(
                #"{"chatId":"00048aAPEQJ8000U","statusCode":0,"chatEnded":false,"alias":"117","userId":"007555677B20000A","secureKey":"4ee15d7e1c343c8e","nextPosition":3,"userData":{},"messages":[{"from":{"nickname":"First Last","participantId":1,"type":"Client"},"index":1,"type":"ParticipantJoined","utcTime":1432845088000},{"from":{"nickname":"Ann","participantId":2,"type":"Agent"},"index":2,"type":"Message","text":"Hello","utcTime":1432845089000}]}"#
            )
        )
        #expect(reply.chatID == "00048aAPEQJ8000U")
        #expect(reply.secureKey == "4ee15d7e1c343c8e")
        #expect(reply.userID == "007555677B20000A" && reply.alias == "117")
        #expect(reply.nextPosition == 3)
        #expect(reply.messages.map(\.position) == [1, 2])
        #expect(reply.messages[0].party == GMSParty(nickname: "First Last", type: "Client", participantID: "1"))
        #expect(reply.messages[0].party.isClient)
        #expect(reply.messages[1].type.normalized == "Message.Text")
        #expect(reply.messages[1].text == "Hello")
        #expect(reply.messages[1].utcMilliseconds == 1_432_845_089_000)
    }

    @Test func readsAV2RefusalAndTheEndOfAChat() throws {
        let reply = try GMSChatV2Reply(
            decoding: Self.json(
                #"{"messages":[],"chatEnded":true,"statusCode":2,"alias":1323,"errors":[{"code":249,"advice":"Media server was not able to execute request."}]}"#
            )
        )
        #expect(reply.chatEnded && reply.statusCode == 2)
        #expect(reply.alias == "1323")
        #expect(reply.errors == ["249: Media server was not able to execute request."])
    }

    @Test func aV2RowWithoutAnIndexFailsTheEventByName() throws {
        #expect(throws: GMSDecodeError(problem: "message 1 of 1: field \"index\" is a string, expected a position from 1")) {
            try GMSChatV2Reply(decoding: Self.json(#"{"messages":[{"index":"first","type":"Message","text":"secret"}]}"#))
        }
    }

    @Test func readsTheSeedsV1EventAndNumbersRowsBackFromThePosition() throws {
        // The seed's catch-up after a disconnect at "4": two rows ending at "6".
        let event = try GMSChatV1Event(
            decoding: Self.json(
                #"{"id":"ad41d420","tag":"service.chat.refresh.180-92e0f9e6","message":{"transcriptPosition":"6","startedAt":"2015-02-10T22:39:23Z","chatServiceMessage":"Chat service is available","chatSessionId":"0000YaADMWXM0013","chatIxnState":"TRANSCRIPT","transcriptToShow":[["Message.Text","chat1","How can I help?","28","AGENT"],["Notice.TypingStarted","chat1","is typing","29","AGENT"]]}}"#
            )
        )
        #expect(event.serviceID == "180-92e0f9e6")
        #expect(event.chatSessionID == "0000YaADMWXM0013")
        #expect(event.state == "TRANSCRIPT")
        #expect(event.rows.map(\.position) == [5, 6])
        #expect(event.rows.map(\.type.normalized) == ["Message.Text", "Notice.TypingStarted"])
        #expect(event.rows[0].party == GMSParty(nickname: "chat1", type: "AGENT"))
        #expect(event.rows[0].text == "How can I help?")
    }

    @Test func aV1EventWhosePositionCannotHoldItsRowsIsRefused() throws {
        #expect(throws: GMSDecodeError.self) {
            try GMSChatV1Event(
                decoding: Self.json(
                    #"{"tag":"service.chat.refresh.1","message":{"transcriptPosition":"1","transcriptToShow":[["Message.Text","a","x","1","AGENT"],["Message.Text","a","y","2","AGENT"]]}}"#
                )
            )
        }
        #expect(throws: GMSDecodeError.self) {
            try GMSChatV1Event(
                decoding: Self.json(#"{"tag":"service.chat.refresh.1","message":{"transcriptPosition":"2","transcriptToShow":[{"type":"x"}]}}"#)
            )
        }
    }
}
