import CXoneCore
import ContactCenterSim
import Foundation
import NIOHTTP1
import Testing

// The gateway's rich messages and inactivity popup (/control/cxone/rich), read with the plugin's wire
// types as the CXone SDK reads them, and the popup's answers.
extension CXoneGatewayTests {
    @Test func richMessagesAndThePopupAreReadAsTheSDKReadsThemAndAnExpiringAnswerEndsTheContact() async throws {
        let simulator = try await Self.start()
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        let threadId = CXoneID.random()
        let first = CXoneWire.SendMessage(thread: .init(idOnExternalPlatform: threadId), messageContent: .text("Hi"), idOnExternalPlatform: .random())
        _ = try await client.request(.sendMessage(first))

        var read: [CXoneWire.RichContent] = []
        for kind in CXoneGateway.richKinds {
            let control = "http://127.0.0.1:\(simulator.httpPort)/control/cxone/rich?thread=\(threadId.rawValue)&kind=\(kind)"
            #expect(try await Self.http(.POST, control).status == 200)
            guard case .event(_, _, .messageCreated(let created)) = try await client.receive() else {
                Issue.record("no MessageCreated for \(kind)")
                return
            }
            #expect(created.message.direction == .outbound)
            if let content = created.message.messageContent.richContent { read.append(content) }
        }
        #expect(read.count == 4, "\(read)")
        guard case .quickReplies(let title, let buttons) = read.first else { throw CXoneGatewayTestFailure("\(read)") }
        #expect(title == "Which topic?")
        #expect(buttons.map(\.postback) == [#"{"topic":"billing"}"#, #"{"topic":"delivery"}"#])
        guard case .inactivityPopup(let popup) = read.last else { throw CXoneGatewayTestFailure("\(read)") }
        #expect(popup.refreshButton.text == "I'm still here" && popup.expireButton.text == "End the chat")
        #expect(popup.countdownSeconds == 60)
        #expect(
            try await Self.http(.POST, "http://127.0.0.1:\(simulator.httpPort)/control/cxone/rich?thread=\(threadId.rawValue)&kind=gallery").status
                == 404
        )

        // Staying keeps the contact; the expire button's answer ends it (CaseStatusChanged).
        func answer(_ button: CXoneWire.PopupButton) -> CXoneWire.SendMessage {
            CXoneWire.SendMessage(
                thread: .init(idOnExternalPlatform: threadId),
                messageContent: .answer(button.text, postback: button.postback, isInactivityPopupAnswer: true),
                idOnExternalPlatform: .random()
            )
        }
        let (stayed, _) = try await client.request(.sendMessage(answer(popup.refreshButton)))
        guard case .event(_, _, .messageCreated) = stayed else { throw CXoneGatewayTestFailure("\(stayed)") }
        #expect(simulator.cxone.thread(threadId.rawValue)?.contact.status == "new")
        let (left, _) = try await client.request(.sendMessage(answer(popup.expireButton)))
        guard case .event(_, _, .messageCreated) = left else { throw CXoneGatewayTestFailure("\(left)") }
        guard case .event(_, _, .caseStatusChanged(let closed)) = try await client.receive() else {
            throw CXoneGatewayTestFailure("no CaseStatusChanged")
        }
        #expect(closed.contact.isClosed)
    }
}

struct CXoneGatewayTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
