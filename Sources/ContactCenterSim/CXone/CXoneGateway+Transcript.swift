import Foundation
import Synchronization

/// The agent reading the customer's messages (MessageSeenChanged) and transcripts by e-mail
/// (SendTranscript → TranscriptSent), as the CXone mobile SDK meets them (`MessageSeenChangedDTO`,
/// `SendTranscriptDataDTO`, `ChatThreadService.sendTranscript(to:)`).
extension CXoneGateway {
    /// SendTranscript: answered with TranscriptSent when the channel allows transcripts and the contact
    /// is one of the customer's; otherwise refused with SendingTranscriptFailed, as the SDK expects.
    func sendTranscript(_ frame: SimCXoneClientFrame, contactId: String, recipients: [String], on connection: CXoneGatewayConnection) {
        guard self.settings.allowsTranscript else {
            return self.fail(frame, "SendingTranscriptFailed", "the channel does not allow transcripts", on: connection)
        }
        let customer = frame.customerId
        let thread = self.threads.first { SimCXoneID.same($0.contact.id, contactId) && SimCXoneID.same($0.customerId, customer) }
        guard let thread else {
            return self.fail(frame, "SendingTranscriptFailed", "no contact \(contactId) of this customer", on: connection)
        }
        self.state.withLock { state in
            state.transcripts.append(
                CXoneGatewayTranscript(threadId: thread.id, contactId: thread.contact.id, recipients: recipients, messages: thread.messages.count)
            )
        }
        self.answer(frame, "TranscriptSent", [:], on: connection)
    }

    /// Transcripts sent, in order.
    package var transcripts: [CXoneGatewayTranscript] { self.state.withLock { $0.transcripts } }

    /// The agent reads the thread: the customer's messages not yet read get `userStatistics.seenAt` and
    /// `readAt`, and the newest of them is pushed as MessageSeenChanged (`{"message"}`) to the customer.
    /// Returns the message, or nil when the customer has written nothing unread.
    @discardableResult
    package func agentReads(threadID: String) throws(SimulatorError) -> CXoneGatewayMessage? {
        let now = Date(timeIntervalSince1970: self.now())
        let result: (CXoneGatewayMessage?, [CXoneGatewayConnection])? = self.state.withLock { state in
            guard var thread = state.threads[SimCXoneID.key(threadID)] else { return nil }
            var newest: CXoneGatewayMessage?
            for index in thread.messages.indices where thread.messages[index].direction == .inbound && thread.messages[index].seenByAgentAt == nil {
                thread.messages[index].seenByAgentAt = now
                newest = thread.messages[index]
            }
            state.threads[SimCXoneID.key(thread.id)] = thread
            return (newest, Self.connections(of: thread.customerId, in: state))
        }
        guard case let (message, connections)? = result else {
            throw SimulatorError(.callState, "the CXone gateway has no thread \(threadID); the customer must send a message first")
        }
        guard let message else { return nil }
        let data: GMSJSON = ["brand": ["id": .int(self.settings.brandId)], "message": message.json]
        for connection in connections { self.push("MessageSeenChanged", data, to: connection) }
        return message
    }
}

/// A transcript the customer asked for: the thread, its contact, the addresses and how many messages.
package struct CXoneGatewayTranscript: Sendable, Hashable {
    package var threadId: String
    package var contactId: String
    package var recipients: [String]
    package var messages: Int
}
