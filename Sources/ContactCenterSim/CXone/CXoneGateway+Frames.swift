import Foundation
import Synchronization

/// The socket protocol: each client frame answered as the CXone gateway does.
extension CXoneGateway {
    /// The largest client frame the gateway reads; a larger one is answered with a server error.
    static let maxClientFrameSize = 1 << 20

    /// One text frame from a client.
    func receive(_ bytes: [UInt8], from connection: CXoneGatewayConnection) {
        let frame: SimCXoneClientFrame
        let event: SimCXoneClientEvent
        do throws(SimCXoneWireError) {
            guard bytes.count <= Self.maxClientFrameSize else { throw SimCXoneWireError("the frame is larger than \(Self.maxClientFrameSize) bytes") }
            guard case .frame(let parsed) = try SimCXoneClientFrame.parse(bytes) else {
                if !self.hasFault(.missingPongs) { self.send(.pong, to: connection) }
                return
            }
            frame = parsed
            event = try SimCXoneClientEvent.read(parsed)
        } catch {
            self.send(.serverError(message: "Bad request: \(error)", connectionId: "\(connection.id)", requestId: nil), to: connection)
            return
        }
        let fault: CXoneGatewayFault? = self.state.withLock { state in
            state.receivedEventTypes.append(frame.eventType)
            if let index = state.faults.firstIndex(of: .dropOnNextMessage) {
                state.faults.remove(at: index)
                return .dropOnNextMessage
            }
            return state.faults.first { fault in
                switch fault {
                case .serverError(let eventType), .operationError(let eventType, _): eventType == frame.eventType
                default: false
                }
            }
        }
        switch fault {
        case .dropOnNextMessage?:
            connection.drop()
            return
        case .serverError?:
            self.send(.serverError(message: "Internal server error", connectionId: "\(connection.id)", requestId: frame.eventId), to: connection)
            return
        case .operationError(_, let code)?:
            self.fail(frame, code, "injected fault", on: connection)
            return
        default:
            break
        }
        guard frame.brandId == self.settings.brandId, frame.channelId == self.settings.channelId else {
            self.fail(frame, "ChannelNotFound", "no channel \(frame.channelId) in brand \(frame.brandId)", on: connection)
            return
        }
        if case .authorizeCustomer = event {} else { connection.customerId = frame.customerId }
        self.handle(event, of: frame, on: connection)
    }

    private func handle(_ event: SimCXoneClientEvent, of frame: SimCXoneClientFrame, on connection: CXoneGatewayConnection) {
        let customer = frame.customerId
        switch event {
        case .authorizeCustomer(let code, let verifier):
            self.authorize(frame, code: code, verifier: verifier, on: connection)
        case .reconnectCustomer(let token):
            guard let identity = self.state.withLock({ $0.tokens[token] }) else {
                return self.fail(frame, "ConsumerReconnectionFailed", "unknown or expired access token", on: connection)
            }
            connection.customerId = identity.id
            self.answer(frame, "ConsumerReconnected", ["consumerIdentity": identity.json], on: connection)
        case .refreshToken(let token):
            guard let identity = self.state.withLock({ $0.tokens.removeValue(forKey: token) }) else {
                return self.fail(frame, "TokenRefreshingFailed", "unknown access token", on: connection)
            }
            self.answer(frame, "TokenRefreshed", ["accessToken": self.issueToken(for: identity)], on: connection)
        case .recoverThread(let threadId), .recoverLivechat(let threadId):
            let live: Bool
            if case .recoverLivechat = event { live = true } else { live = false }
            guard let thread = self.recoverable(threadId, customer: customer) else {
                return self.fail(frame, live ? "RecoveringLivechatFailed" : "RecoveringThreadFailed", "no thread to recover", on: connection)
            }
            // The latest page of messages, with the token for the page before it (LoadMoreMessages).
            let size = self.state.withLock { $0.pageSize } ?? thread.messages.count
            let start = max(0, thread.messages.count - size)
            var recovered: GMSJSON = [
                "contact": thread.contactJSON,
                "messages": .array(thread.messages[start...].map(\.json)),
                "thread": thread.json(channelId: self.settings.channelId),
            ]
            if start > 0 { recovered["messagesScrollToken"] = .string("page-\(start)") }
            if thread.messages.contains(where: { $0.direction == .outbound }) { recovered["inboxAssignee"] = self.settings.agent.json }
            self.answer(frame, live ? "LivechatRecovered" : "ThreadRecovered", recovered, on: connection)
        case .fetchThreadList:
            let threads = self.threads.filter { SimCXoneID.same($0.customerId, customer) }.map { $0.json(channelId: self.settings.channelId) }
            self.answer(frame, "ThreadListFetched", ["threads": .array(threads)], on: connection)
        case .loadThreadMetadata(let threadId):
            let thread = self.thread(threadId).flatMap { SimCXoneID.same($0.customerId, customer) ? $0 : nil }
            var metadata: GMSJSON = [:]
            if thread?.messages.contains(where: { $0.direction == .outbound }) == true { metadata["ownerAssignee"] = self.settings.agent.json }
            if let last = thread?.messages.last { metadata["lastMessage"] = last.json }
            self.answer(frame, "ThreadMetadataLoaded", metadata, on: connection)
        case .sendMessage(let message):
            if !message.contactFields.isEmpty {
                self.state.withLock { state in
                    for field in message.contactFields {
                        state.contactFields[SimCXoneID.key(message.threadId), default: [:]][field.ident] = field.value
                    }
                }
            }
            self.store(frame, message, on: connection)
            if self.expiresSession(message), let thread = self.thread(message.threadId), !thread.contact.isClosed {
                self.endContact(frame, threadId: thread.id, contactId: thread.contact.id, on: connection)
            }
        case .sendOutbound(let message):
            // The welcome message: the client sends it, but it is the brand's, outbound like an agent's.
            self.store(frame, message, direction: .outbound, on: connection)
        case .endContact(let threadId, let contactId):
            self.endContact(frame, threadId: threadId, contactId: contactId, on: connection)
        case .storeVisitorEvents(let events):
            self.state.withLock { $0.analyticsEvents += events }
        case .loadMoreMessages(let threadId, let token):
            // `page-N`: the messages before the Nth, a page of them, and the token for the page before.
            guard let thread = self.recoverable(threadId, customer: customer), token.hasPrefix("page-"),
                let end = Int(token.dropFirst("page-".count)), (0...thread.messages.count).contains(end)
            else {
                return self.fail(frame, "LoadMoreMessagesFailed", "no page \(token) in thread \(threadId)", on: connection)
            }
            let start = max(0, end - (self.state.withLock { $0.pageSize } ?? end))
            self.answer(
                frame,
                "MoreMessagesLoaded",
                ["messages": .array(thread.messages[start..<end].map(\.json)), "scrollToken": .string(start > 0 ? "page-\(start)" : "")],
                on: connection
            )
        case .sendTranscript(let contactId, let recipients):
            self.sendTranscript(frame, contactId: contactId, recipients: recipients, on: connection)
        case .other:
            break  // typing, seen, custom fields: accepted, not modelled
        }
    }
}

extension CXoneGateway {
    /// Answers a request: a postback carrying the request's `eventId`.
    func answer(_ frame: SimCXoneClientFrame, _ eventType: String, _ data: GMSJSON, on connection: CXoneGatewayConnection) {
        self.send(.postback(eventId: frame.eventId, eventType: eventType, data: data), to: connection)
    }

    /// Refuses a request: an operation error whose `transactionId` is the request's `eventId`.
    func fail(_ frame: SimCXoneClientFrame, _ code: String, _ message: String, on connection: CXoneGatewayConnection) {
        self.send(.operationError(code: code, message: message, transactionId: frame.eventId), to: connection)
    }
}
