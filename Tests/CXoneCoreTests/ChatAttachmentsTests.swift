import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Testing

/// A message's attachments: what the host sees (``ChatAttachment``) and where the file is, which only the
/// session keeps (the URL, often pre-signed, is never in the ``ChatMessage``).
@Suite struct ChatAttachmentsTests {
    static let signed = "https://files.example.com/brand/invoice.pdf?X-Amz-Signature=secret"

    static func message() -> CXoneWire.Message {
        var message = ChatChoicesTests.wireMessage("m-files", .text("Here you are"))
        message.attachments = [
            CXoneWire.Attachment(url: Self.signed, friendlyName: "Invoice March.pdf", mimeType: "application/pdf", fileName: "inv.pdf"),
            CXoneWire.Attachment(url: "https://files.example.com/a/photo.jpg?sig=1"),
        ]
        return message
    }

    @Test func attachmentsAreShownByNameAndTypeAndTheirAddressesStayInTheSession() throws {
        var session = ChatSessionStepTests.session(ChatOutboxTests.ready().machine)
        let actions = ChatChoicesTests.push(&session, Self.message())
        let shown = try #require(
            actions.compactMap { action -> ChatMessage? in
                guard case .emit(.messageReceived(let message)) = action else { return nil }
                return message
            }.first
        )
        #expect(
            shown.attachments == [
                ChatAttachment(id: "1", name: "Invoice March.pdf", mimeType: "application/pdf"),
                ChatAttachment(id: "2", name: "photo.jpg", mimeType: "application/octet-stream"),
            ]
        )
        #expect(!"\(shown)".contains("secret"), "no address in what the host sees")

        let file = try session.attachment(threadID: nil, messageID: "M-FILES", attachmentID: "1")
        #expect(file == ChatMessageExtras.File(url: Self.signed, name: "Invoice March.pdf", mimeType: "application/pdf"))
        for (message, attachment, words) in [
            ("m-files", "3", "has no attachment 3; it has 1, 2"),
            ("m-other", "1", "message m-other has no attachments here"),
        ] {
            #expect {
                try session.attachment(threadID: nil, messageID: message, attachmentID: attachment)
            } throws: { error in
                (error as? ChannelError)?.code == .invalidArgument && (error as? ChannelError)?.message.contains(words) == true
            }
        }
        #expect(throws: ChannelError.self) { try session.attachment(threadID: "thread-2", messageID: "m-files", attachmentID: "1") }
    }

    @Test func aFileCommandIsItsCallAndItsAnswerIsTheFileOrTheMessageThatCarriesIt() throws {
        let commands = ChatCommand.Settings(
            brandID: 1386,
            channelID: "chat_1",
            requestTimeout: .seconds(10),
            responseTimeout: .seconds(5),
            gatewayDescription: "wss://gateway",
            maximumAttachmentSize: 1000
        )
        let unconfigured = ChatSessionStepTests.session()
        let early = ChatCommand.sendFile(threadID: nil, ChatFile(name: "a.pdf", mimeType: "application/pdf", bytes: [1]))
        #expect(throws: ChannelError.self) { try unconfigured.fileCall(early, commands) }

        var driver = ChatDriver()
        driver.prepare(.init(fileRestrictions: .init(isEnabled: true, maximumMegabytes: 1, mimeTypes: ["application/pdf"])))
        driver.connect()
        driver.handle(.threadRecovered(ChatThread(id: "thread-1", state: .loaded), caseID: "case-1", agent: nil))
        var session = ChatSessionStepTests.session(driver.machine)
        _ = ChatChoicesTests.push(&session, Self.message())

        // A download: GET at the message's address, no more than max-attachment-size; the body is the file.
        let download = try #require(try session.fileCall(.downloadAttachment(threadID: nil, messageID: "m-files", attachmentID: "1"), commands))
        #expect(download.call.request.method == "GET" && download.call.request.url == Self.signed)
        #expect(download.call.request.maximumResponseSize == 1000)
        guard case .reply(.file(let file)) = try download.answer(ChatCallTests.answer(200, "OK", "%PDF"), now: ChatCallTests.now) else {
            Issue.record("a download's answer is not the file")
            return
        }
        #expect(file == ChatFile(name: "Invoice March.pdf", mimeType: "application/pdf", bytes: Array("%PDF".utf8)))
        #expect(throws: ChannelError.self) { try download.answer(ChatCallTests.answer(404, "Not Found", ""), now: ChatCallTests.now) }

        // A file the restrictions refuse is refused before any call, saying what the channel takes.
        let refused = ChatCommand.sendFile(threadID: nil, ChatFile(name: "a.txt", mimeType: "text/plain", bytes: [1]))
        #expect {
            try session.fileCall(refused, commands)
        } throws: { error in
            (error as? ChannelError)?.code == .invalidArgument
                && (error as? ChannelError)?.message.contains("the channel takes application/pdf") == true
        }

        // An upload: POST …/attachment; its fileUrl goes out in a message on the thread asked for.
        let taken = ChatCommand.sendFile(threadID: "thread-1", ChatFile(name: "a.pdf", mimeType: "application/pdf", bytes: [1, 2]))
        let upload = try #require(try session.fileCall(taken, commands))
        #expect(upload.call.request.method == "POST" && upload.call.request.url.hasSuffix("/brand/1386/channel/chat_1/attachment"))
        let answered = try upload.answer(ChatCallTests.answer(200, "OK", #"{"fileUrl": "https://files.example.com/f-1"}"#), now: ChatCallTests.now)
        guard case .then(let operation) = answered else {
            Issue.record("an upload's answer is not a message to send")
            return
        }
        let sent = try #require(
            try session.begin(operation, id: 7).compactMap { action -> String? in
                guard case .writeLink(let bytes) = action else { return nil }
                return String(decoding: bytes, as: UTF8.self)
            }.first
        )
        #expect(sent.contains("SendMessage") && sent.contains("https://files.example.com/f-1"), "\(sent)")
        #expect(throws: ChannelError.self) { try upload.answer(ChatCallTests.answer(200, "OK", "{}"), now: ChatCallTests.now) }
        #expect(try session.fileCall(.status, commands) == nil)
    }
}
