import AttendantPluginAPI
import CXoneCore
import Testing

/// ``ChatOutbox`` alone: entries kept in order until confirmed, each sent once per connection.
@Suite struct ChatOutboxValueTests {
    static func entry(_ id: String, _ text: String, welcome: Bool = false) -> ChatOutbox.Entry {
        ChatOutbox.Entry(messageID: id, threadID: "t1", text: text, isWelcome: welcome, writtenAt: UnixTime(secondsSince1970: 1_700_000_000))
    }

    @Test func aConnectionSendsEachEntryOnceInOrderAndTheNextSendsWhatIsLeft() {
        var outbox = ChatOutbox([Self.entry("M-1", "one")])
        outbox.add(Self.entry("m-2", "two"))
        var first = ChatOutbox.Sent()
        #expect(outbox.unsent(on: first).map(\.text) == ["one", "two"])
        first.insert("m-1")
        #expect(outbox.unsent(on: first).map(\.text) == ["two"])
        #expect(outbox.awaitsConfirmation("M-1", sent: first))
        #expect(!outbox.awaitsConfirmation("m-2", sent: first), "not sent on this connection yet")

        let confirmed = outbox.remove("m-1")
        #expect(confirmed?.text == "one")
        #expect(!outbox.awaitsConfirmation("m-1", sent: first), "confirmed, it awaits nothing")
        first.insert("m-2")
        #expect(outbox.unsent(on: first).isEmpty)

        // The connection is lost before m-2 is confirmed: the next one sends it again.
        #expect(outbox.unsent(on: ChatOutbox.Sent()).map(\.messageID) == ["m-2"])
    }

    @Test func entriesAreFoundByIdInAnyCaseAndRemovedOnce() {
        var outbox = ChatOutbox([Self.entry("Welcome-1", "Hello", welcome: true), Self.entry("m-2", "two")])
        #expect(outbox.entry("welcome-1")?.isWelcome == true)
        #expect(outbox.entry("m-3") == nil)
        let removed = outbox.remove("WELCOME-1")
        let removedAgain = outbox.remove("welcome-1")
        #expect(removed?.messageID == "Welcome-1")
        #expect(removedAgain == nil)
        #expect(outbox.entries.map(\.messageID) == ["m-2"])
    }
}
