package import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import FoundationEssentials

// Older messages: LoadMoreMessages with the scroll token ThreadRecovered (`messagesScrollToken`) or the
// last MoreMessagesLoaded (`scrollToken`) gave, and the oldest message's time (the SDK's
// `ChatThreadService.loadMoreMessages()`, `LoadMoreMessagesEventDataDTO`); an empty page means there are
// no more (the SDK then forgets the token: `processMoreMessagesLoaded`).
extension ChatSession {
    /// Where a thread's older messages start.
    struct OlderPage: Sendable {
        var scrollToken: String
        var oldest: UnixTime
    }

    /// `loadOlderMessages`: the page before the messages given so far, as request `id`, replied with the
    /// thread whose `lastMessages` are that page, oldest first (none: there are no more).
    package mutating func loadOlder(threadID: String?, timeout: Duration, id: UInt64) throws(ChannelError) -> [Action] {
        guard let target = threadID ?? self.machine.workingThread(current: self.currentThread) else {
            throw ChannelError(.illegalState, "\(self.prefix): there is no chat thread to load older messages of; open one first")
        }
        guard let thread = self.machine.thread(target) else {
            throw ChannelError(.illegalState, "\(self.prefix): there is no chat thread \(target); list the threads to see which exist")
        }
        let empty = ChatThread(id: thread.id, name: thread.name, state: thread.state)
        guard let page = self.pages[thread.id.lowercased()] else { return [.replied(id, .success(.thread(empty)))] }
        guard self.machine.state == .ready else {
            throw ChannelError(.illegalState, "\(self.prefix): cannot load older messages while the chat is \(self.machine.state): connect first")
        }
        let eventID = CXoneID.random()
        self.olderRequests[eventID] = (thread.id, id)
        self.requests[id] = Request(pending: ChatOperation.Pending(actions: []) { _, _ in nil }, timeout: timeout)
        let command = ChatStateMachine.Command.loadMoreMessages(threadID: thread.id, scrollToken: page.scrollToken, oldestMessageAt: page.oldest)
        return [.setTimer(.request(id), after: timeout), self.frame(for: command, eventID: eventID)]
    }

    /// Notes a recovered thread's scroll token, and answers the request a MoreMessagesLoaded (or its
    /// refusal) is for.
    mutating func olderPage(_ inbound: CXoneInbound) -> [Action] {
        switch inbound.receivedEvent {
        case .threadRecovered(let recovered)?, .livechatRecovered(let recovered)?:
            let key = ChatWireInput.id(recovered.thread.idOnExternalPlatform)
            self.pages[key] = Self.page(recovered.messagesScrollToken, recovered.messages)
            return []
        default:
            break
        }
        guard let eventID = inbound.answeredRequestId, let (threadID, id) = self.olderRequests.removeValue(forKey: eventID) else { return [] }
        guard let request = self.requests.removeValue(forKey: id) else { return [] }
        let key = threadID.lowercased()
        let outcome: ChatOperation.Outcome
        if let refusal = self.refusal(inbound, refused: "refused older messages", failed: "failed to load older messages") {
            outcome = .failure(refusal)
        } else {
            guard case .moreMessagesLoaded(let loaded)? = inbound.receivedEvent else { return [] }
            self.pages[key] = loaded.messages.isEmpty ? nil : Self.page(loaded.scrollToken, loaded.messages)
            let page = ChatWireInput.input(
                for: .threadRecovered(
                    CXoneWire.ThreadRecovered(messages: loaded.messages, thread: CXoneWire.Thread(idOnExternalPlatform: CXoneID(threadID)))
                ),
                now: UnixTime(secondsSince1970: 0)
            )
            var thread =
                self.machine.thread(threadID).map { ChatThread(id: $0.id, name: $0.name, state: $0.state) } ?? ChatThread(id: threadID, state: .ready)
            if case .threadRecovered(let older, _, _)? = page.input {
                // An older page has no popup to answer: the latest message is not in it (ChatWireInput.thread).
                thread.lastMessages = older.lastMessages.filter { !ChatStateMachine.internalMarkers.contains($0.text) && $0.kind != .idleAlert }
            }
            outcome = .success(.thread(thread))
        }
        return self.replied(id, outcome, request)
    }

    /// The error a request's answer is, when the server refused it (an operation error: "the chat server
    /// `refused` (code): message") or failed (a server error: "the chat server `failed`: message"); nil
    /// for any other answer. LoadMoreMessages and SendTranscript are answered this way.
    func refusal(_ inbound: CXoneInbound, refused: String, failed: String) -> ChannelError? {
        switch inbound {
        case .operationError(let error):
            return ChannelError(.server, "\(self.prefix): the chat server \(refused) (\(error.errorCode)): \(error.errorMessage ?? error.errorCode)")
        case .serverError(let error):
            return ChannelError(.server, "\(self.prefix): the chat server \(failed): \(error.message)")
        default:
            return nil
        }
    }

    static func page(_ token: String?, _ messages: [CXoneWire.Message]) -> OlderPage? {
        guard let token, !token.isEmpty, let oldest = messages.map(\.createdAt).min() else { return nil }
        return OlderPage(scrollToken: token, oldest: UnixTime(secondsSince1970: oldest.timeIntervalSince1970))
    }
}
