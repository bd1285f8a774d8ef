import AttendantPluginKit
import GMSCore
import Testing

/// What the customer's operations carry (v2 publishes, v1 form POSTs) and how v1's answers are read.
@Suite struct GMSChatOperationsTests {
    static func json(_ text: String) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONValue.parse(Array(text.utf8)) else { throw GMSDecodeError(problem: "not an object") }
        return object
    }

    /// An object of strings.
    static func strings(_ pairs: [String: String]) -> JSONValue { .object(pairs.mapValues { .string($0) }) }

    @Test func requestChatNamesTheCustomerByNicknameElseFirstAndLastNameElseCustomer() {
        let nickname = GMSChatV2Operation.requestChat(GMSCustomer(nickname: "Al", firstName: "Alice", lastName: "Liddell", email: "a@example.com"))
        #expect(nickname == Self.strings(["operation": "requestChat", "nickname": "Al", "emailAddress": "a@example.com"]))
        let names = GMSChatV2Operation.requestChat(GMSCustomer(firstName: "Alice", lastName: "Liddell", subject: "Refund"))
        #expect(names == Self.strings(["operation": "requestChat", "firstName": "Alice", "lastName": "Liddell", "subject": "Refund"]))
        #expect(GMSChatV2Operation.requestChat(GMSCustomer()) == Self.strings(["operation": "requestChat", "nickname": "Customer"]))
        #expect(GMSCustomer(firstName: "Alice", lastName: "Liddell").displayName == "Alice Liddell")
    }

    @Test func requestChatCarriesTheUserDataRoutingReads() {
        let data = GMSChatV2Operation.requestChat(GMSCustomer(nickname: "Al", userData: ["Segment": "gold", "TimeZone": "-480"]))
        guard case .object(let fields) = data else {
            Issue.record("requestChat is not an object: \(data)")
            return
        }
        #expect(fields["userData"] == .object(["Segment": .string("gold"), "TimeZone": .string("-480")]))
        // None configured: no userData at all.
        guard case .object(let plain) = GMSChatV2Operation.requestChat(GMSCustomer(nickname: "Al")) else { return }
        #expect(plain["userData"] == nil)
    }

    @Test func aV2OperationCarriesTheChatsKeysAndNeedsASecureKey() {
        let keys = GMSChatKeys(secureKey: "s3", chatID: "c1", userID: "u7", alias: "117")
        let send = GMSChatV2Operation.operation("sendMessage", keys: keys, fields: ["message": "Hi"])
        #expect(send == Self.strings(["operation": "sendMessage", "secureKey": "s3", "userId": "u7", "alias": "117", "message": "Hi"]))
        #expect(GMSChatV2Operation.operation("sendMessage", keys: GMSChatKeys(chatID: "c1")) == nil)
        // requestNotifications asks from the position after the last one shown.
        let ask = GMSChatV2Operation.requestNotifications(keys: keys, after: 4)
        #expect(ask?["transcriptPosition"] == .number(5))
        #expect(ask?["operation"] == .string("requestNotifications"))
    }

    @Test func v1FormsHaveTheSeedsPathsAndAnEncodedBodyInKeyOrder() {
        let request = GMSChatV1Form.requestChat(service: "request-chat", subject: "a & b")
        #expect(request.path == "/1/service/request-chat")
        #expect(String(decoding: request.body, as: UTF8.self) == "_verbose=true&subject=a+%26+b")
        let create = GMSChatV1Form.createInteraction(serviceID: "180-x", customer: GMSCustomer(nickname: "Zoë", email: "z@example.com"))
        #expect(create.path == "/1/service/180-x/ixn/chat")
        #expect(String(decoding: create.body, as: UTF8.self) == "_verbose=true&email=z%40example.com&notify_by=comet&userDisplayName=Zo%C3%AB")
        let refresh = GMSChatV1Form.refresh(serviceID: "180-x", after: 6)
        #expect(refresh.path == "/1/service/180-x/ixn/chat/refresh" && refresh.fields == ["transcriptPosition": "6", "_verbose": "true"])
        #expect(GMSChatV1Form.operation("send", serviceID: "180-x", fields: ["message": "Hi"]).what == "send")
        #expect(GMSChatV1Form.formEncoded("A-z_0.9*~/") == "A-z_0.9*%7E%2F")
    }

    @Test func aV1AnswerIsItsJSONObjectOrARefusalThatSaysWhetherToTryAgain() throws {
        #expect(try GMSChatV1Form.answer(status: 200, body: Array(#"{"_id":"180-x"}"#.utf8)).get() == ["_id": .string("180-x")])
        let refused = GMSChatV1Form.answer(status: 400, body: Array(#"{"message":"no such service"}"#.utf8))
        #expect(throws: GMSChatV1Form.Refusal(transient: false, reason: "was refused (HTTP 400): no such service")) { try refused.get() }
        guard case .failure(let gateway) = GMSChatV1Form.answer(status: 502, body: Array("<html>".utf8)) else {
            Issue.record("a 502 with an HTML body was read as a GMS reply")
            return
        }
        #expect(gateway.transient)
        #expect(gateway.reason.hasPrefix("answered HTTP 502 with 6 bytes that are not a GMS reply"))
        #expect(throws: GMSChatV1Form.Refusal.self) { try GMSChatV1Form.answer(status: 200, body: Array("[1]".utf8)).get() }
    }

    @Test func aV1CreationsAnswerGivesTheKeysWithTheServiceStandingInForAMissingSecureKey() throws {
        let reply = try Self.json(
            #"{"chatSessionId":"000A","userId":"u1","transcriptPosition":"1","chatIxnState":"CONNECTED","transcriptToShow":[["Notice.Joined","Alice","has joined the session","0","CLIENT"]]}"#
        )
        let (keys, event) = try GMSChatV1Form.created(reply, serviceID: "180-x")
        #expect(keys == GMSChatKeys(secureKey: "180-x", chatID: "000A", userID: "u1", serviceID: "180-x"))
        #expect(event.serviceID == "180-x" && event.rows.count == 1 && event.state == "CONNECTED")
        #expect(throws: GMSDecodeError.self) { try GMSChatV1Form.serviceID(in: ["_id": .string("")]) }
        #expect(try GMSChatV1Form.serviceID(in: ["_id": .string("180-x")]) == "180-x")
    }

    @Test func theBayeuxSessionsFieldsShowTheTransportTheClientIDsAgeAndTheAdvice() {
        var advice = BayeuxAdvice()
        advice.reconnect = .retry
        advice.interval = .zero
        advice.timeout = .milliseconds(30_000)
        let status = BayeuxClientStateMachine.Status(
            clientID: "c1",
            handshakeAt: .seconds(100),
            connectionType: .longPolling,
            advice: advice,
            connected: true,
            failures: 2
        )
        #expect(
            status.fields(now: .seconds(142)) == [
                "transport": "long-polling", "client-id-age": "42 s", "advice": "reconnect=retry interval=0 ms timeout=30000 ms", "failures": "2",
            ]
        )
        let fresh = BayeuxClientStateMachine.Status(
            clientID: nil,
            handshakeAt: nil,
            connectionType: .webSocket,
            advice: BayeuxAdvice(),
            connected: false,
            failures: 0
        )
        #expect(fresh.fields(now: .seconds(1)) == ["transport": "websocket", "advice": ""])
    }
}

@Suite struct GMSChatKeysTests {
    @Test func theKeysAreKeptInTheSecretsAllFiveAndRemovedAllFive() {
        let kept = GMSChatKeys.writes(GMSChatKeys(secureKey: "s", chatID: "c", userID: "u", alias: "a", serviceID: "v"))
        #expect(kept.allSatisfy { $0.place == .secrets })
        #expect(
            Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) }) == [
                "secure-key": "s", "chat-id": "c", "user-id": "u", "alias": "a", "service-id": "v",
            ]
        )
        let removed = GMSChatKeys.writes(nil)
        #expect(removed.count == 5 && removed.allSatisfy { $0.place == .secrets && $0.value == nil })
    }
}
