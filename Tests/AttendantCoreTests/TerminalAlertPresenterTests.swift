import AttendantPluginAPI
import Testing

@testable import AttendantCore

/// The demo's terminal lines: one per call and per agent message; a chat contact that names its thread
/// shows through the thread's messages only, as on the desktop.
@Suite struct TerminalAlertPresenterTests {
    static let agent = Party(displayName: "Ada Lovelace", address: "cxone-agent:42")
    static let when = UnixTime(secondsSince1970: 1_800_000_000)

    @Test func aCallRingsWithItsActions() {
        let call = Contact(
            id: "c1",
            kind: .call,
            from: Party(displayName: "Grace Hopper", address: "sip:grace@example.org"),
            summary: "Call to sip:alice@example.org",
            receivedAt: Self.when,
            actions: [.accept, .decline]
        )
        #expect(
            TerminalAlertPresenter.line(for: .incomingContact(call), channel: "phone")
                == "🔔 Incoming call from Grace Hopper <sip:grace@example.org> on phone: Call to sip:alice@example.org  [Accept | Decline]"
        )
    }

    @Test func aChatThreadsContactShowsOnlyThroughItsMessages() {
        var contact = Contact(id: "t1", kind: .chat, from: Self.agent, summary: "Conversation with Ada Lovelace", receivedAt: Self.when)
        contact.threadID = "t1"
        #expect(TerminalAlertPresenter.line(for: .incomingContact(contact), channel: "chat") == nil)
        let message = ChatMessage(
            id: "m1",
            threadID: "t1",
            direction: .fromAgent,
            sender: Self.agent,
            text: "Hello\u{1B}[2J there",
            sentAt: Self.when
        )
        #expect(TerminalAlertPresenter.line(for: .messageReceived(message), channel: "chat") == "💬 Ada Lovelace on chat: Hello [2J there")
    }

    @Test func aChatContactWithoutAThreadStillShows() {
        let contact = Contact(id: "t2", kind: .chat, from: Self.agent, summary: "", receivedAt: Self.when)
        #expect(
            TerminalAlertPresenter.line(for: .incomingContact(contact), channel: "chat") == "🔔 New chat from Ada Lovelace <cxone-agent:42> on chat"
        )
    }
}
