import CXoneCore
import Foundation
import Synchronization

/// The socket protocol: each client frame answered as the CXone gateway does.
extension CXoneGateway {
    /// One text frame from a client.
    func receive(_ bytes: [UInt8], from connection: CXoneGatewayConnection) {
        let outbound: CXoneOutbound
        do {
            outbound = try CXoneOutbound.decode(bytes)
        } catch {
            self.send(.serverError(CXoneServerError(message: "Bad request: \(error)", connectionId: "\(connection.id)")), to: connection)
            return
        }
        guard case .frame(let frame) = outbound else {
            if !self.hasFault(.missingPongs) { self.send(.pong, to: connection) }
            return
        }
        let fault: CXoneGatewayFault? = self.state.withLock { state in
            state.receivedEventTypes.append(frame.event.eventType)
            if let index = state.faults.firstIndex(of: .dropOnNextMessage) {
                state.faults.remove(at: index)
                return .dropOnNextMessage
            }
            return state.faults.first { fault in
                switch fault {
                case .serverError(let eventType), .operationError(let eventType, _): eventType == frame.event.eventType
                default: false
                }
            }
        }
        switch fault {
        case .dropOnNextMessage?:
            connection.drop()
            return
        case .serverError?:
            self.send(.serverError(CXoneServerError(message: "Internal server error", connectionId: "\(connection.id)", requestId: frame.eventId.rawValue)), to: connection)
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
        if case .authorizeCustomer = frame.event {} else { connection.customerId = frame.customer.idOnExternalPlatform }
        self.handle(frame, on: connection)
    }

    private func handle(_ frame: CXoneClientFrame, on connection: CXoneGatewayConnection) {
        let customer = frame.customer.idOnExternalPlatform
        switch frame.event {
        case .authorizeCustomer(let data):
            self.authorize(frame, data, on: connection)
        case .reconnectCustomer(let data):
            guard let identity = self.state.withLock({ $0.tokens[data.accessToken.token.value] }) else {
                return self.fail(frame, "ConsumerReconnectionFailed", "unknown or expired access token", on: connection)
            }
            connection.customerId = identity.idOnExternalPlatform
            self.answer(frame, .consumerReconnected(.init(consumerIdentity: identity)), on: connection)
        case .refreshToken(let data):
            guard let identity = self.state.withLock({ $0.tokens.removeValue(forKey: data.accessToken.token.value) }) else {
                return self.fail(frame, "TokenRefreshingFailed", "unknown access token", on: connection)
            }
            self.answer(frame, .tokenRefreshed(.init(accessToken: self.issueToken(for: identity))), on: connection)
        case .recoverThread(let data), .recoverLivechat(let data):
            let live: Bool
            if case .recoverLivechat = frame.event { live = true } else { live = false }
            guard let thread = self.recoverable(data?.thread.idOnExternalPlatform, customer: customer) else {
                return self.fail(frame, live ? "RecoveringLivechatFailed" : "RecoveringThreadFailed", "no thread to recover", on: connection)
            }
            let recovered = CXoneWire.ThreadRecovered(
                contact: thread.contact,
                messages: thread.messages,
                inboxAssignee: thread.messages.contains { $0.direction == .outbound } ? self.settings.agent : nil,
                thread: thread.thread
            )
            self.answer(frame, live ? .livechatRecovered(recovered) : .threadRecovered(recovered), on: connection)
        case .fetchThreadList:
            let threads = self.threads.filter { $0.customerId == customer }.map(\.thread)
            self.answer(frame, .threadListFetched(.init(threads: threads)), on: connection)
        case .loadThreadMetadata(let data):
            let thread = self.thread(data.thread.idOnExternalPlatform).flatMap { $0.customerId == customer ? $0 : nil }
            let agent = thread?.messages.contains { $0.direction == .outbound } == true ? self.settings.agent : nil
            self.answer(frame, .threadMetadataLoaded(.init(ownerAssignee: agent, lastMessage: thread?.messages.last)), on: connection)
        case .sendMessage(let data):
            if let fields = data.contact?.customFields, !fields.isEmpty {
                self.state.withLock { state in
                    for field in fields { state.contactFields[data.thread.idOnExternalPlatform, default: [:]][field.ident] = field.value }
                }
            }
            self.store(frame, thread: data.thread, id: data.idOnExternalPlatform, content: data.messageContent, attachments: data.attachments, on: connection)
        case .sendOutbound(let data):
            // The welcome message: the client sends it, but it is the brand's, outbound like an agent's.
            self.store(frame, thread: data.thread, id: data.idOnExternalPlatform, content: data.messageContent, attachments: data.attachments, direction: .outbound, on: connection)
        case .endContact(let data):
            self.endContact(frame, data, on: connection)
        case .storeVisitorEvents(let data):
            self.state.withLock { $0.analyticsEvents += data.visitorEvents }
        default:
            break  // typing, seen, custom fields, more messages: accepted, not modelled
        }
    }

    private func authorize(_ frame: CXoneClientFrame, _ data: CXoneWire.AuthorizeCustomer, on connection: CXoneGatewayConnection) {
        var authorized = CXoneWire.ConsumerAuthorized(consumerIdentity: frame.customer)
        if self.settings.isAuthorizationEnabled {
            guard let code = data.authorizationCode?.value, !code.isEmpty, let verifier = data.codeVerifier?.value, !verifier.isEmpty else {
                return self.fail(frame, "ConsumerAuthorizationFailed", "OAuth is on: the authorization code and code verifier are required", on: connection)
            }
            let identity = CXoneWire.CustomerIdentity(idOnExternalPlatform: .random(), firstName: frame.customer.firstName, lastName: frame.customer.lastName)
            authorized = CXoneWire.ConsumerAuthorized(consumerIdentity: identity, accessToken: self.issueToken(for: identity))
        }
        connection.customerId = authorized.consumerIdentity?.idOnExternalPlatform
        self.answer(frame, .consumerAuthorized(authorized), on: connection)
        if let greeting = self.settings.greeting, let customer = connection.customerId, !self.threads.contains(where: { $0.customerId == customer }) {
            let delay = self.settings.greetingDelay
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard let self, !self.threads.contains(where: { $0.customerId == customer }) else { return }
                _ = try? self.agentOpensThread(customerID: customer, text: greeting)
            }
        }
        if let welcome = self.settings.welcomeMessage {
            let action = CXoneWire.ProactiveAction(
                destinationId: frame.destinationId,
                actionId: "welcome",
                actionName: "Welcome",
                actionType: "WelcomeMessage",
                content: .init(bodyText: welcome)
            )
            self.push(.fireProactiveAction(action), to: connection)
        }
    }

    private func issueToken(for identity: CXoneWire.CustomerIdentity) -> CXoneWire.AccessToken {
        let token = "sim-" + CXoneID.random().rawValue
        self.state.withLock { $0.tokens[token] = identity }
        return CXoneWire.AccessToken(
            token: CXoneSecret(token),
            expiresIn: self.settings.accessTokenLifetime,
            currentDate: Date(timeIntervalSince1970: self.now())
        )
    }

    /// The named thread if the customer owns it; without a name, the customer's newest thread.
    private func recoverable(_ threadID: CXoneID?, customer: CXoneID) -> CXoneGatewayThread? {
        if let threadID {
            return self.thread(threadID).flatMap { $0.customerId == customer ? $0 : nil }
        }
        return self.threads.last { $0.customerId == customer }
    }

    /// Stores a customer message once per `idOnExternalPlatform` and answers MessageCreated; a re-sent
    /// message is answered again but not stored twice.
    private func store(
        _ frame: CXoneClientFrame,
        thread reference: CXoneWire.ThreadReference,
        id: CXoneID,
        content: CXoneWire.MessageContent,
        attachments: [CXoneWire.Attachment],
        direction: CXoneWire.Direction = .inbound,
        on connection: CXoneGatewayConnection
    ) {
        let customer = connection.customerId ?? frame.customer.idOnExternalPlatform
        let date = Date(timeIntervalSince1970: self.now())
        let stored: (CXoneWire.Message, CXoneGatewayThread, isNew: Bool)? = self.state.withLock { state in
            var thread = state.threads[reference.idOnExternalPlatform] ?? CXoneGatewayThread(
                thread: CXoneWire.Thread(
                    idOnExternalPlatform: reference.idOnExternalPlatform,
                    id: "\(self.settings.channelId)_\(reference.idOnExternalPlatform.rawValue)",
                    channelId: self.settings.channelId,
                    threadName: reference.threadName,
                    canAddMoreMessages: true
                ),
                customerId: customer,
                contact: CXoneWire.Contact(id: .random(), threadIdOnExternalPlatform: reference.idOnExternalPlatform, status: "new", createdAt: date),
                messages: []
            )
            guard thread.customerId == customer else { return nil }
            if let existing = thread.messages.first(where: { $0.idOnExternalPlatform == id }) { return (existing, thread, false) }
            if thread.contact.isClosed {
                thread.contact = CXoneWire.Contact(id: .random(), threadIdOnExternalPlatform: thread.id, status: "new", createdAt: date)
            }
            let message = CXoneWire.Message(
                idOnExternalPlatform: id,
                threadIdOnExternalPlatform: thread.id,
                messageContent: content,
                createdAt: date,
                attachments: attachments,
                direction: direction,
                authorEndUserIdentity: direction == .inbound ? frame.customer : nil
            )
            thread.messages.append(message)
            if state.threads[thread.id] == nil { state.threadOrder.append(thread.id) }
            state.threads[thread.id] = thread
            return (message, thread, true)
        }
        guard case let (message, thread, isNew)? = stored else {
            return self.fail(frame, "ThreadNotFound", "thread \(reference.idOnExternalPlatform) belongs to another customer", on: connection)
        }
        self.push(.messageCreated(self.messageCreated(message, in: thread)), to: connection)
        if isNew, direction == .inbound, self.settings.autoReply {
            let text = "You wrote: \(content.text ?? content.type)"
            let delay = self.settings.autoReplyDelay
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                _ = try? self?.agentSays(threadID: thread.id, text: text)
            }
        }
    }

    private func endContact(_ frame: CXoneClientFrame, _ data: CXoneWire.EndContact, on connection: CXoneGatewayConnection) {
        let customer = connection.customerId ?? frame.customer.idOnExternalPlatform
        let ended: CXoneGatewayThread? = self.state.withLock { state in
            guard var thread = state.threads[data.thread.idOnExternalPlatform], thread.customerId == customer,
                  thread.contact.id == data.contact.id else { return nil }
            thread.contact.status = "closed"
            state.threads[thread.id] = thread
            return thread
        }
        guard let ended else {
            return self.fail(frame, "ContactNotFound", "no contact \(data.contact.id) in thread \(data.thread.idOnExternalPlatform)", on: connection)
        }
        let event = CXoneReceivedEvent.caseStatusChanged(.init(
            brand: .init(id: self.settings.brandId), channel: .init(id: self.settings.channelId), contact: ended.contact, thread: ended.thread
        ))
        for target in self.state.withLock({ Self.connections(of: customer, in: $0) }) { self.push(event, to: target) }
    }

    private func answer(_ frame: CXoneClientFrame, _ event: CXoneReceivedEvent, on connection: CXoneGatewayConnection) {
        self.send(.postback(eventId: frame.eventId, event: event), to: connection)
    }

    private func fail(_ frame: CXoneClientFrame, _ code: String, _ message: String, on connection: CXoneGatewayConnection) {
        self.send(.operationError(CXoneOperationError(eventId: .random(), errorCode: code, errorMessage: message, transactionId: frame.eventId)), to: connection)
    }
}
