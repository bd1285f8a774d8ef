import CXoneCore
import Foundation

/// The frames the benchmark feeds the plugin's decoder, in the shapes the simulator's gateway sends
/// (`Sources/ContactCenterSim/CXone`, which has its own codec): encoded here with the plugin's wire types
/// (`CXoneInbound(...).encoded()`), which `SimCXoneBodyTests` checks write the same bytes as the gateway;
/// one brand and channel, the simulator's scripted agent as author.
struct GatewayFrames {
    static let brandID = 1386
    static let channelID = "chat_sim"
    static let agent = CXoneWire.Agent(id: 42, firstName: "Ada", surname: "Lovelace")

    /// A base date for `createdAt`; each message is one second after the previous one.
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A thread as the gateway describes it.
    func thread(_ id: CXoneID, name: String? = nil) -> CXoneWire.Thread {
        CXoneWire.Thread(
            idOnExternalPlatform: id,
            id: "\(Self.channelID)_\(id.rawValue)",
            channelId: Self.channelID,
            threadName: name,
            canAddMoreMessages: true
        )
    }

    /// The agent's message number `number` in `thread`: a fresh id and a text of about 100 characters.
    func agentMessage(_ number: Int, in thread: CXoneID) -> CXoneWire.Message {
        CXoneWire.Message(
            idOnExternalPlatform: .random(),
            threadIdOnExternalPlatform: thread,
            messageContent: .text(Self.text(number)),
            createdAt: self.start.addingTimeInterval(Double(number)),
            direction: .outbound,
            authorUser: Self.agent
        )
    }

    /// About 100 characters, different for each number.
    static func text(_ number: Int) -> String {
        let text = "Thanks for waiting. I checked order \(100_000 + number) and it left our warehouse this morning; tracking follows."
        return String(text.prefix(100))
    }

    /// A pushed MessageCreated, as the gateway's scripted agent sends it: a fresh `eventId`, `createdAt`, the case and thread.
    func messageCreated(_ message: CXoneWire.Message, thread: CXoneWire.Thread, contact: CXoneWire.Contact) throws -> [UInt8] {
        let created = CXoneWire.MessageCreated(
            brand: .init(id: Self.brandID),
            channel: .init(id: Self.channelID),
            contact: contact,
            thread: thread,
            message: message
        )
        return try CXoneInbound.event(eventId: .random(), createdAt: message.createdAt, event: .messageCreated(created)).encoded()
    }

    /// ConsumerAuthorized answering AuthorizeCustomer.
    func consumerAuthorized(answering eventId: CXoneID, customer: CXoneID) throws -> [UInt8] {
        let authorized = CXoneWire.ConsumerAuthorized(consumerIdentity: .init(idOnExternalPlatform: customer, firstName: "Grace", lastName: "Hopper"))
        return try CXoneInbound.postback(eventId: eventId, event: .consumerAuthorized(authorized)).encoded()
    }

    /// ThreadRecovered answering RecoverThread: the thread, its case and its earlier messages.
    func threadRecovered(
        answering eventId: CXoneID,
        thread: CXoneWire.Thread,
        contact: CXoneWire.Contact,
        messages: [CXoneWire.Message]
    ) throws -> [UInt8] {
        let recovered = CXoneWire.ThreadRecovered(contact: contact, messages: messages, inboxAssignee: Self.agent, thread: thread)
        return try CXoneInbound.postback(eventId: eventId, event: .threadRecovered(recovered)).encoded()
    }

    /// ThreadListFetched answering FetchThreadList.
    func threadListFetched(answering eventId: CXoneID, threads: [CXoneWire.Thread]) throws -> [UInt8] {
        try CXoneInbound.postback(eventId: eventId, event: .threadListFetched(.init(threads: threads))).encoded()
    }

    /// ThreadMetadataLoaded answering LoadThreadMetadata: the owner and the thread's last message.
    func threadMetadataLoaded(answering eventId: CXoneID, lastMessage: CXoneWire.Message) throws -> [UInt8] {
        let metadata = CXoneWire.ThreadMetadata(ownerAssignee: Self.agent, lastMessage: lastMessage)
        return try CXoneInbound.postback(eventId: eventId, event: .threadMetadataLoaded(metadata)).encoded()
    }
}
