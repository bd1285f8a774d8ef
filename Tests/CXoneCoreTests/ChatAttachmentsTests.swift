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
}
