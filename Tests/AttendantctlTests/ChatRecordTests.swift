import AttendantCLI
import AttendantControl
import Foundation
import Systemd
import Testing

/// A chat message's choices and attachments on the control interface: encoded as `aa{sv}`, read back
/// whole, left out when there are none (so older clients and the JSON output see nothing new).
@Suite struct ChatRecordTests {
    static let offer: ChatMessageRecord = {
        var record = ChatMessageRecord(id: "m3", threadID: "t1", direction: "from-agent", sender: "Bot", text: "Pick one", sentAt: 1_763_800_120)
        record.choices = [
            ChatChoiceRecord(id: "yes", label: "Yes, please"),
            ChatChoiceRecord(id: "docs", label: "Read the docs", url: "https://example.test/docs"),
        ]
        record.attachments = [ChatAttachmentRecord(id: "a1", name: "invoice.pdf", mimeType: "application/pdf", size: 48_213)]
        return record
    }()

    @Test func choicesAndAttachmentsRoundTripThroughTheirBusEncoding() throws {
        let value = Self.offer.busValue
        let entries = try #require(value.stringDictionary)
        #expect(entries["Choices"]?.elements?.count == 2)
        #expect(entries["Attachments"]?.elements?.first?.stringDictionary?["Size"]?.int64 == 48_213)
        #expect(ChatMessageRecord(value) == Self.offer)
    }

    @Test func aPlainMessageCarriesNeitherOnTheBusNorInJSON() throws {
        let plain = ChatMessageRecord(id: "m1", threadID: "t1", direction: "to-agent", sender: "You", text: "Hello", sentAt: 1_763_800_000)
        let entries = try #require(plain.busValue.stringDictionary)
        #expect(entries["Choices"] == nil && entries["Attachments"] == nil)
        #expect(ChatMessageRecord(plain.busValue)?.choices == nil)
        let json = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!json.contains("choices") && !json.contains("attachments"), "\(json)")
    }
}

/// How `chat open` and `--json` show a message's choices and files.
@Suite struct ChatRecordOutputTests {
    @Test func choicesAndFilesShowWithTheCommandsThatUseThem() {
        let json = ChatRecordTests.offer.json.text
        #expect(
            json.contains(#""choices":[{"id":"yes","label":"Yes, please"},{"id":"docs","label":"Read the docs","url":"https://example.test/docs"}]"#),
            "\(json)"
        )
        #expect(json.hasSuffix(#""attachments":[{"id":"a1","name":"invoice.pdf","mimeType":"application/pdf","size":48213}]}"#), "\(json)")
        let lines = ChatRecordTests.offer.lines
        #expect(lines.count == 3)
        #expect(lines[1] == "    choices (chat choose m3 ID): yes=Yes, please, docs=Read the docs <https://example.test/docs>")
        #expect(lines[2] == "    file a1 (chat save m3 a1): invoice.pdf (application/pdf, 48213 bytes)")
        let plain = ChatMessageRecord(id: "m1", threadID: "t1", direction: "to-agent", sender: "You", text: "Hello", sentAt: 1_763_800_000)
        #expect(plain.lines == [plain.line])
        #expect(!plain.json.text.contains("choices"))
    }
}
