import Foundation
import Synchronization

/// Threads and messages: storing what a customer sends, recovering a thread, ending its contact.
extension CXoneGateway {
    /// The named thread if the customer owns it; without a name, the customer's newest thread.
    func recoverable(_ threadId: String?, customer: String) -> CXoneGatewayThread? {
        if let threadId {
            return self.thread(threadId).flatMap { SimCXoneID.same($0.customerId, customer) ? $0 : nil }
        }
        return self.threads.last { SimCXoneID.same($0.customerId, customer) }
    }

    /// Stores a customer message once per `idOnExternalPlatform` and answers MessageCreated; a re-sent
    /// message is answered again but not stored twice. A message after the contact closed opens a new one.
    func store(
        _ frame: SimCXoneClientFrame,
        _ sent: SimCXoneSentMessage,
        direction: CXoneGatewayDirection = .inbound,
        on connection: CXoneGatewayConnection
    ) {
        let customer = connection.customerId ?? frame.customerId
        let date = Date(timeIntervalSince1970: self.now())
        let key = SimCXoneID.key(sent.threadId)
        let stored: (CXoneGatewayMessage, CXoneGatewayThread, isNew: Bool)? = self.state.withLock { state in
            var thread =
                state.threads[key]
                ?? CXoneGatewayThread(
                    id: sent.threadId,
                    name: sent.threadName,
                    customerId: customer,
                    contact: CXoneGatewayContact(id: SimCXoneID.random(), status: "new", createdAt: date),
                    messages: []
                )
            guard SimCXoneID.same(thread.customerId, customer) else { return nil }
            if let existing = thread.messages.first(where: { SimCXoneID.same($0.id, sent.id) }) { return (existing, thread, false) }
            if thread.contact.isClosed {
                thread.contact = CXoneGatewayContact(id: SimCXoneID.random(), status: "new", createdAt: date)
            }
            let message = CXoneGatewayMessage(
                id: sent.id,
                threadId: thread.id,
                createdAt: date,
                direction: direction,
                content: sent.content,
                attachments: sent.attachments,
                customer: direction == .inbound ? SimCXoneCustomer(frame.customer) : nil
            )
            thread.messages.append(message)
            if state.threads[key] == nil { state.threadOrder.append(key) }
            state.threads[key] = thread
            return (message, thread, true)
        }
        guard case let (message, thread, isNew)? = stored else {
            return self.fail(frame, "ThreadNotFound", "thread \(sent.threadId) belongs to another customer", on: connection)
        }
        self.push("MessageCreated", self.messageCreated(message, in: thread), to: connection)
        if isNew, direction == .inbound, self.settings.autoReply {
            let text = "You wrote: \(message.text ?? message.contentType)"
            let delay = self.settings.autoReplyDelay
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                _ = try? self?.agentSays(threadID: thread.id, text: text)
            }
        }
    }

    /// EndContact: closes the thread's current contact and tells every socket of the customer
    /// (CaseStatusChanged).
    func endContact(_ frame: SimCXoneClientFrame, threadId: String, contactId: String, on connection: CXoneGatewayConnection) {
        let customer = connection.customerId ?? frame.customerId
        let ended: CXoneGatewayThread? = self.state.withLock { state in
            let key = SimCXoneID.key(threadId)
            guard var thread = state.threads[key], SimCXoneID.same(thread.customerId, customer),
                SimCXoneID.same(thread.contact.id, contactId)
            else { return nil }
            thread.contact.status = "closed"
            state.threads[key] = thread
            return thread
        }
        guard let ended else {
            return self.fail(frame, "ContactNotFound", "no contact \(contactId) in thread \(threadId)", on: connection)
        }
        let data: GMSJSON = [
            "brand": ["id": .int(self.settings.brandId)],
            "channel": ["id": .string(self.settings.channelId)],
            "case": ended.contactJSON,
            "thread": ended.json(channelId: self.settings.channelId),
        ]
        for target in self.state.withLock({ Self.connections(of: customer, in: $0) }) { self.push("CaseStatusChanged", data, to: target) }
    }
}
