import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

/// How ``GMSChatSession``'s work and the callers' requests reach GMS with no network: v1's HTTP calls
/// (``GMSChatCall``) and what their outcomes come to, v2's publishes for the session's work and what a
/// failed one comes to, and the callers' calls (``GMSChatRequestCall``: v1 operations, v2's files).
@Suite struct GMSChatCallTests {
    typealias Action = GMSChatSession.Action

    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func session(apiVersion: Int) -> GMSChatSession {
        let settings = GMSChatSession.Settings(
            apiVersion: apiVersion,
            service: "customer-support",
            serverDescription: "GMS at https://gms.test/genesys (chat API v\(apiVersion))",
            networkDelay: .seconds(4),
            makeThreadID: { "gms-thread" },
            baseURL: "https://gms.test/genesys",
            gmsUser: "user-7",
            customer: GMSCustomer(nickname: "Grace", subject: "Billing")
        )
        return GMSChatSession(settings: settings, transport: BayeuxTransport.Configuration(url: "https://gms.test/genesys/cometd"))
    }

    static func answer(_ status: Int, _ body: String) -> Result<NetworkResponse, NetworkError> {
        .success(NetworkResponse(status: status, body: Array(body.utf8)))
    }

    static func logs(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .log(let level, let line) = $0 { "\(level) \(line)" } else { nil } }
    }

    static func failure(_ actions: [Action], id: UInt64) -> String? {
        actions.lazy.compactMap { if case .replied(id, .failure(let error)) = $0 { error.message } else { nil } }.first
    }

    static func asksAgain(_ actions: [Action]) -> Bool {
        actions.contains { if case .work(.requestNotifications) = $0 { true } else { false } }
    }

    /// A v1 session connected and listening, whose chat is active with service `svc-1`.
    static func activeV1() throws -> GMSChatSession {
        var session = Self.session(apiVersion: 1)
        _ = session.connected(over: "websocket")
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        _ = session.v1ServiceMade("svc-1")
        let event = GMSChatV1Event(serviceID: "svc-1", chatSessionID: "chat-1", state: nil, transcriptPosition: 0, startedAt: nil, rows: [])
        _ = session.v1Created(GMSChatKeys(secureKey: "key-1", chatID: "chat-1", serviceID: "svc-1"), event, now: Self.now)
        return session
    }

    /// A v2 session connected and listening, whose chat is active.
    static func activeV2() throws -> GMSChatSession {
        var session = Self.session(apiVersion: 2)
        _ = session.connected(over: "websocket")
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        _ = session.received(GMSChatV2Reply(chatID: "chat-1", userID: "u-1", secureKey: "key-1"), now: Self.now)
        return session
    }

    // MARK: The session's work

    @Test func v1sWorkIsAFormPostWithTheGMSUserAndV2sIsNoCall() throws {
        let v1 = Self.session(apiVersion: 1)
        let request = try #require(v1.call(for: .requestChat)).request
        #expect(request.method == "POST" && request.url == "https://gms.test/genesys/1/service/customer-support")
        #expect(request.headers.contains(NetworkHeader("gms_user", "user-7")))
        #expect(request.body == GMSChatV1Form.requestChat(service: "customer-support", subject: "Billing").body)
        let create = try #require(v1.call(for: .createV1Interaction(serviceID: "svc-1")))
        #expect(create.request.url == "https://gms.test/genesys/1/service/svc-1/ixn/chat")
        #expect(create.form == .createInteraction(serviceID: "svc-1", customer: GMSCustomer(nickname: "Grace", subject: "Billing")))
        let keys = GMSChatKeys(secureKey: "key-1", serviceID: "svc-1")
        #expect(v1.call(for: .requestNotifications(keys, after: 6))?.form == .refresh(serviceID: "svc-1", after: 6))
        #expect(v1.call(for: .fetchRows(keys, from: 6))?.form == .refresh(serviceID: "svc-1", after: 5))
        #expect(v1.call(for: .requestNotifications(GMSChatKeys(secureKey: "key-1"), after: 6)) == nil, "no service: no refresh")

        let v2 = Self.session(apiVersion: 2)
        #expect(v2.call(for: .requestChat) == nil && v2.call(for: .requestNotifications(keys, after: 6)) == nil)
    }

    @Test func v1sRequestChatAnswerGivesTheServiceAndItsFailureFailsTheStart() throws {
        var session = Self.session(apiVersion: 1)
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        let call = try #require(session.call(for: .requestChat))
        #expect(call.step(Self.answer(200, #"{"_id": "svc-9"}"#), now: Self.now)(&session).isEmpty, "created once connected")
        let connected = session.connected(over: "websocket")
        #expect(connected.contains { if case .work(.createV1Interaction("svc-9")) = $0 { true } else { false } })

        var refused = Self.session(apiVersion: 1)
        refused.listened()
        _ = try refused.startChat(2, timeout: .seconds(8))
        let failed = call.step(Self.answer(503, #"{"message": "overloaded"}"#), now: Self.now)(&refused)
        #expect(
            Self.failure(failed, id: 2)
                == "gms-chat: GMS at https://gms.test/genesys (chat API v1): request-chat was refused (HTTP 503): overloaded"
        )
        let noService = call.step(Self.answer(200, "{}"), now: Self.now)
        var another = Self.session(apiVersion: 1)
        another.listened()
        _ = try another.startChat(3, timeout: .seconds(8))
        #expect(
            Self.failure(noService(&another), id: 3)
                == "gms-chat: GMS at https://gms.test/genesys (chat API v1) answered request-chat without a service id (_id)"
        )
    }

    @Test func v1sCreationStartsTheChatWithItsRows() throws {
        var session = Self.session(apiVersion: 1)
        _ = session.connected(over: "websocket")
        session.listened()
        _ = try session.startChat(1, timeout: .seconds(8))
        _ = session.v1ServiceMade("svc-1")
        let call = try #require(session.call(for: .createV1Interaction(serviceID: "svc-1")))
        let body =
            #"{"secureKey": "key-1", "chatSessionId": "chat-1", "transcriptPosition": "1", "chatIxnState": "CONNECTED", "transcriptToShow": [["Message.Text", "Ann", "hello", "2", "AGENT"]]}"#
        let started = call.step(Self.answer(200, body), now: Self.now)(&session)
        #expect(session.phase == .active && session.keys?.serviceID == "svc-1")
        #expect(started.contains { if case .emit(.messageReceived(let message)) = $0 { message.text == "hello" } else { false } })
        #expect(started.contains { if case .replied(1, .success) = $0 { true } else { false } })
    }

    @Test func aFailedRefreshIsAWarningAndIsAskedForAgainOnceConnected() throws {
        var session = try Self.activeV1()
        let interrupted = session.interrupted("connection reset")
        #expect(Self.asksAgain(interrupted))
        let keys = try #require(session.keys)
        let call = try #require(session.call(for: .requestNotifications(keys, after: 0)))
        let failed = call.step(.failure(NetworkError(.connection, "connection refused")), now: Self.now)(&session)
        #expect(
            Self.logs(failed) == [
                "warning gms-chat: GMS at https://gms.test/genesys (chat API v1): refresh failed: connection refused; asking again once connected"
            ]
        )
        #expect(Self.asksAgain(session.connected(over: "websocket")))

        // Rows that came are the chat's, and nothing is owed.
        let rows = #"{"transcriptPosition": "1", "transcriptToShow": [["Message.Text", "Ann", "again", "1", "AGENT"]]}"#
        let refreshed = call.step(Self.answer(200, rows), now: Self.now)(&session)
        #expect(refreshed.contains { if case .emit(.messageReceived(let message)) = $0 { message.text == "again" } else { false } })
        #expect(!Self.asksAgain(session.connected(over: "websocket")))
    }

    @Test func v2sWorkIsPublishedAndAFailedRequestForTheEventsIsAWarning() throws {
        var session = try Self.activeV2()
        // The connection was lost: the chat's events are asked for, published while there is no CometD session.
        let work = try #require(
            session.interrupted("connection reset").lazy.compactMap { if case .work(let work) = $0 { work } else { nil } }.first
        )
        #expect(Self.logs(session.carryOut(work, now: Self.now)).isEmpty)
        // The session ends before one started: the publish fails.
        let ended = session.disconnect(9, now: Self.now)
        #expect(
            Self.logs(ended).contains {
                $0.hasPrefix(
                    "warning gms-chat: asking for the chat's events after position 0 from GMS at https://gms.test/genesys (chat API v2) failed: "
                )
                    && $0.hasSuffix("; asking again once connected")
            },
            "\(Self.logs(ended))"
        )
        #expect(Self.asksAgain(session.connected(over: "websocket")))

        // Without a secure key nothing is asked, and it is owed.
        var keyless = try Self.activeV2()
        _ = keyless.interrupted("connection reset")
        #expect(keyless.carryOut(.requestNotifications(GMSChatKeys(), after: 0), now: Self.now).isEmpty)
        #expect(keyless.transcript.catchUp == .owed)
    }

    @Test func aFailedV2RequestChatFailsTheStart() throws {
        var session = Self.session(apiVersion: 2)
        session.listened()
        _ = try session.startChat(4, timeout: .seconds(8))
        _ = session.carryOut(.requestChat, now: Self.now)
        let ended = session.disconnect(9, now: Self.now)
        let message = try #require(Self.failure(ended, id: 4))
        #expect(message.hasPrefix("gms-chat: requesting a chat from GMS at https://gms.test/genesys (chat API v2) failed: "), "\(message)")
        #expect(session.phase == .none)
    }

    // MARK: The callers' calls

    @Test func aV1OperationIsAPostWhoseRowsAreTheSessionsAndV2PublishesIt() throws {
        let session = try Self.activeV1()
        let operation = GMSChatOperation(v2: "sendMessage", v1: "send", fields: ["message": "hi"], reply: .done, startsChat: true)
        let call = try #require(try session.call(for: operation))
        #expect(call.request.url == "https://gms.test/genesys/1/service/svc-1/ixn/chat/send")
        let rows = #"{"transcriptPosition": "2", "transcriptToShow": [["Message.Text", "Me", "hi", "2", "CLIENT"]]}"#
        guard case .reply(.done, let event?) = try call.answer(Self.answer(200, rows)) else {
            Issue.record("no rows")
            return
        }
        #expect(event.serviceID == "svc-1" && event.rows.map(\.text) == ["hi"])
        #expect(throws: ChannelError.self) { try call.answer(Self.answer(400, #"{"message": "bad"}"#)) }

        var v2 = try Self.activeV2()
        #expect(try v2.call(for: operation) == nil)
        #expect(Self.failure(try v2.operate(operation, 5, now: Self.now), id: 5) == nil)
        var none = Self.session(apiVersion: 2)
        #expect(throws: ChannelError(.illegalState, "gms-chat: there is no chat; start one with `attendantctl chat connect`")) {
            try none.operate(operation, 6, now: Self.now)
        }
    }

    @Test func aFileIsSentOnlyIfGMSsLimitsTakeIt() throws {
        let session = try Self.activeV2()
        let limitsAnswer = Self.answer(
            200,
            #"{"statusCode": 0, "messages": [{"type": "Notice", "text": "file-client-cfg-get", "userData": {"upload-max-file-size": "10", "upload-file-types": "pdf:png"}}]}"#
        )
        let refused = try session.sendFile(ChatFile(name: "run.exe", mimeType: "application/octet-stream", bytes: [1]))
        #expect(refused.request.url == "https://gms.test/genesys/2/chat/customer-support/chat-1/file/limits")
        #expect(
            throws: ChannelError(
                .invalidArgument,
                "gms-chat: GMS at https://gms.test/genesys (chat API v2) does not take this file: run.exe is of type exe; it takes pdf, png files up to 10 bytes"
            )
        ) { try refused.answer(limitsAnswer) }
        #expect(
            throws: ChannelError(
                .server,
                "gms-chat: GMS at https://gms.test/genesys (chat API v2) answered fileGetLimits without limits: the answer has no row whose userData holds upload-max-file-size or upload-file-types"
            )
        ) { try refused.answer(Self.answer(200, #"{"statusCode": 0}"#)) }

        let taken = try session.sendFile(ChatFile(name: "a.pdf", mimeType: "application/pdf", bytes: Array("%PDF".utf8)))
        guard case .next(let upload) = try taken.answer(limitsAnswer) else {
            Issue.record("no upload")
            return
        }
        #expect(upload.request.url == "https://gms.test/genesys/2/chat/customer-support/chat-1/file")
        #expect(upload.request.headers.contains(NetworkHeader("Content-Type", "multipart/form-data; boundary=attendant-gms-thread")))
        #expect(
            String(decoding: upload.request.body ?? [], as: UTF8.self).contains("filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF")
        )
        guard case .reply(.done, nil) = try upload.answer(Self.answer(200, #"{"statusCode": 0}"#)) else {
            Issue.record("not done")
            return
        }
        #expect(
            throws: ChannelError(.server, "gms-chat: GMS at https://gms.test/genesys (chat API v2) refused fileUpload: 2: too many files")
        ) { try upload.answer(Self.answer(200, #"{"statusCode": 2, "errors": [{"code": 2, "advice": "too many files"}]}"#)) }

        let ended = Self.session(apiVersion: 2)
        #expect(throws: ChannelError(.illegalState, "gms-chat: there is no chat; start one with `attendantctl chat connect`")) {
            try ended.sendFile(ChatFile(name: "a.pdf", mimeType: "application/pdf", bytes: []))
        }
    }

    @Test func aDownloadIsRefusedPast64MiBAndBringsTheFileUnderItsRowsName() throws {
        var session = try Self.activeV2()
        let ann = GMSParty(nickname: "Ann", type: "Agent")
        let small = GMSTranscriptEvent(
            position: 1,
            type: GMSEventType("FileUploaded"),
            party: ann,
            text: "",
            file: GMSChatFile(id: "f-1", name: "report.pdf", mimeType: "application/pdf", size: 12)
        )
        let large = GMSTranscriptEvent(
            position: 2,
            type: GMSEventType("FileUploaded"),
            party: ann,
            text: "",
            file: GMSChatFile(id: "f-2", name: "big.iso", mimeType: "application/x-iso9660-image", size: 64 << 20 + 1)
        )
        _ = session.received(GMSChatV2Reply(secureKey: "key-1", messages: [small, large]), now: Self.now)
        let messages = session.listThreads().first?.lastMessages ?? []
        let smallMessage = try #require(messages.first { $0.attachments.first?.id == "f-1" })
        let largeMessage = try #require(messages.first { $0.attachments.first?.id == "f-2" })

        #expect(
            throws: ChannelError(
                .invalidArgument,
                "gms-chat: big.iso has 67108865 bytes, more than the 67108864 bytes (64 MiB) attendant downloads"
            )
        ) { try session.download(messageID: largeMessage.id, attachmentID: "f-2") }
        let download = try session.download(messageID: smallMessage.id, attachmentID: "f-1")
        #expect(download.request.url == "https://gms.test/genesys/2/chat/customer-support/chat-1/file/f-1/download")
        #expect(download.request.maximumResponseSize == 64 << 20)
        let bytes = NetworkResponse(status: 200, headers: [NetworkHeader("Content-Type", "application/json")], body: Array("%PDF".utf8))
        guard case .reply(.file(let file), nil) = try download.answer(.success(bytes)) else {
            Issue.record("no file")
            return
        }
        #expect(file == ChatFile(name: "report.pdf", mimeType: "application/pdf", bytes: Array("%PDF".utf8)), "GMS's JSON type is not the file's")
        #expect(
            throws: ChannelError(
                .invalidArgument,
                "gms-chat: fileDownload from GMS at https://gms.test/genesys (chat API v2) brought more than 67108864 bytes, more than attendant takes"
            )
        ) { try download.answer(.failure(NetworkError(.tooLarge, "too large"))) }
    }

    // MARK: The host's application state

    @Test func goingToTheBackgroundSaysGoodbyeOnlyWhenListening() throws {
        var idle = Self.session(apiVersion: 2)
        #expect(idle.goToBackground(3, now: Self.now).contains { if case .replied(3, .success) = $0 { true } else { false } })
        #expect(idle.comeToForeground(now: Self.now).isEmpty)

        var session = try Self.activeV2()
        let going = session.goToBackground(4, now: Self.now)
        #expect(
            Self.logs(going).first
                == "info gms-chat: going to the background: disconnecting from GMS at https://gms.test/genesys (chat API v2) at transcript position 0"
        )
        #expect(going.contains { if case .replied(4, .success) = $0 { true } else { false } }, "no CometD session: nothing to wait for")
        let back = session.comeToForeground(now: Self.now)
        #expect(Self.logs(back).first == "info gms-chat: back in the foreground: a new session with GMS at https://gms.test/genesys (chat API v2)")
    }
}
