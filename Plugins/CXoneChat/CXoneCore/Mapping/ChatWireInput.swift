package import AttendantPluginAPI
import FoundationEssentials

/// Turns what the gateway sends (``CXoneInbound``) into the chat state machine's inputs: the one place
/// that knows both the wire's field names and the machine's model.
///
/// Ids come in mixed letter case from the gateway; the machine compares strings, so every thread, message
/// and case id is lower-cased here (the machine makes lower-case UUIDs itself).
///
/// Some answers do not say what they answer: ThreadMetadataLoaded carries no thread id, so the driver
/// passes the thread of the request the answer is for (matched by ``CXoneInbound/answeredRequestId``).
package enum ChatWireInput {
    /// What a driver needs to know about the request an answer is for.
    package struct Request: Sendable, Hashable {
        /// The thread the request was about (LoadThreadMetadata, RecoverThread).
        package var threadID: String?
        /// The outbox message a SendMessage or SendOutbound carried.
        package var messageID: String?
        package init(threadID: String?) { self.threadID = threadID }
        package init(threadID: String?, messageID: String?) {
            self.threadID = threadID
            self.messageID = messageID
        }
    }

    /// The server's failure to take the message a SendMessage or SendOutbound carried: an operation error
    /// is a refusal of this message, a server error a failure to handle the frame (``transient``, worth
    /// sending again). Nil when `inbound` is not an error or `request` carried no message.
    package static func refusal(_ inbound: CXoneInbound, request: Request?) -> (messageID: String, error: ChatError, transient: Bool)? {
        guard let messageID = request?.messageID else { return nil }
        switch inbound {
        case .operationError(let error):
            let text = "the chat server refused message \(messageID) (\(error.errorCode)): \(error.errorMessage ?? error.errorCode)"
            return (messageID, ChatError(.operation, text, serverCode: error.errorCode), false)
        case .serverError(let error):
            return (messageID, ChatError(.server, "the chat server failed to take message \(messageID): \(error.message)"), true)
        default:
            return nil
        }
    }

    /// The input for `inbound`, or nil for what the machine does not act on (unknown events, events of
    /// features not modelled yet); `ignored` then says what was dropped, for the driver's log.
    /// `now` dates an access token whose answer carries no `currentDate`.
    package static func input(
        for inbound: CXoneInbound,
        request: Request? = nil,
        now: UnixTime
    ) -> (input: ChatStateMachine.Input?, ignored: String?) {
        switch inbound {
        case .pong:
            return (.pong, nil)
        case .operationError(let error):
            return (.operationError(code: error.errorCode, message: error.errorMessage ?? error.errorCode), nil)
        case .serverError(let error):
            return (.serverError(message: error.message), nil)
        case .postback(_, let event), .event(_, _, let event):
            return self.input(for: event, request: request, now: now)
        }
    }

    /// The input a large event's downloaded `body` (EventInS3) makes: its origin event's, or why it could
    /// not be had; `ignored` says what was dropped, for the driver's log. `large` is nil when the notice
    /// of the event is gone (a new socket forgot it).
    package static func downloaded(
        url: String,
        _ body: Result<[UInt8], ChatError>,
        large: CXoneWire.EventInS3?,
        limits: CXoneWireLimits,
        now: UnixTime
    ) -> (input: ChatStateMachine.Input, ignored: String?) {
        let downloaded = Self.downloadedEvent(url: url, body, large: large, limits: limits, now: now)
        return (downloaded.input, downloaded.ignored)
    }

    /// ``downloaded(url:_:large:limits:now:)``, with the messages the event brings (for the session's
    /// ``ChatMessageExtras``).
    package static func downloadedEvent(
        url: String,
        _ body: Result<[UInt8], ChatError>,
        large: CXoneWire.EventInS3?,
        limits: CXoneWireLimits,
        now: UnixTime
    ) -> (input: ChatStateMachine.Input, ignored: String?, messages: [CXoneWire.Message]) {
        guard let large else { return (.downloadFailed(url: url, reason: "the notice of the event is gone"), nil, []) }
        let origin: CXoneInbound
        do {
            origin = try large.decodeOrigin(try body.get(), limits: limits)
        } catch let error as ChatError {
            return (.downloadFailed(url: url, reason: error.message), nil, [])
        } catch {
            return (.downloadFailed(url: url, reason: "its \(large.originEventType) body is not valid: \(error)"), nil, [])
        }
        let (input, ignored) = Self.input(for: origin, now: now)
        guard let input else { return (.downloadIgnored(url: url), "a large \(large.originEventType) event: \(ignored ?? "not used")", []) }
        return (.downloaded(url: url, input), nil, origin.receivedEvent.map(Self.messages(in:)) ?? [])
    }

    /// The input for one received event.
    package static func input(
        for event: CXoneReceivedEvent,
        request: Request? = nil,
        now: UnixTime
    ) -> (input: ChatStateMachine.Input?, ignored: String?) {
        switch event {
        case .consumerAuthorized(let authorized):
            let identity = authorized.consumerIdentity.map(Self.identity) ?? ChatStateMachine.CustomerIdentity(id: "")
            return (.authorized(identity, accessToken: authorized.accessToken.map { Self.token($0, now: now) }), nil)
        case .consumerReconnected:
            return (.reconnected, nil)
        case .threadRecovered(let recovered), .livechatRecovered(let recovered):
            let thread = Self.thread(recovered.thread, messages: recovered.messages, state: .loaded)
            return (.threadRecovered(thread, caseID: recovered.contact.map { Self.id($0.id) }, agent: recovered.inboxAssignee.map(Self.party)), nil)
        case .threadListFetched(let list):
            return (.threadListFetched(list.threads.map { Self.id($0.idOnExternalPlatform) }, at: now), nil)
        case .threadMetadataLoaded(let metadata):
            let threadID = metadata.lastMessage.map { Self.id($0.threadIdOnExternalPlatform) } ?? request?.threadID
            guard let threadID else {
                return (nil, "ThreadMetadataLoaded for no known thread (no last message and no matching request)")
            }
            let lastMessage = metadata.lastMessage.flatMap { Self.isKeptOutOfTheThread($0) ? nil : Self.message($0) }
            return (.threadMetadataLoaded(threadID: threadID, name: nil, lastMessage: lastMessage), nil)
        case .messageCreated(let created):
            let caseID = Self.id(created.contact.id)
            if Self.isKeptOutOfTheThread(created.message) { return (.hiddenMessageCreated(Self.message(created.message), caseID: caseID), nil) }
            return (.messageCreated(Self.message(created.message), caseID: caseID), nil)
        case .caseStatusChanged(let change):
            return (.caseStatusChanged(caseID: Self.id(change.contact.id), status: ChatStateMachine.CaseStatus(change.contact.status ?? "open")), nil)
        case .caseCreated:
            return (nil, "CaseCreated (the case id arrives with the thread's messages)")
        case .fireProactiveAction(let action):
            guard action.isWelcomeMessage, let text = action.content?.bodyText, !text.isEmpty else {
                return (nil, "FireProactiveAction \(action.actionType) (only welcome messages are shown)")
            }
            return (.proactiveAction(welcome: Self.fillingPlaceholders(text)), nil)
        case .eventInS3(let large):
            return (.eventInS3(url: large.url, originEventType: large.originEventType), nil)
        case .senderTyping(let typing, let started):
            return (
                .agentTyping(threadID: Self.id(typing.thread.idOnExternalPlatform), started: started, agent: typing.user.map(Self.party), at: now),
                nil
            )
        case .setPositionInQueue(let queue):
            return (.positionInQueue(caseID: Self.id(queue.consumerContact.id), position: queue.positionInQueue), nil)
        case .caseInboxAssigneeChanged(let change):
            return (.assigneeChanged(caseID: Self.id(change.contact.id), agent: change.inboxAssignee.map(Self.party)), nil)
        case .messageReadChanged(let read):
            guard !Self.isKeptOutOfTheThread(read.message) else { return (nil, "MessageReadChanged of a message kept out of the thread") }
            var message = Self.message(read.message)
            if message.readByAgentAt == nil { message.readByAgentAt = now }
            return (.messageRead(message), nil)
        case .messageSeenChanged(let seen):
            // The message with its seen statistics, which the SDK merges into its thread
            // (`ChatThreadListService.processMessageSeenChangedEvent`): the customer's message with the
            // agent's (`userStatistics`) is one the agent has seen. The agent's message seen by the customer
            // (`customerStatistics`, e.g. on another device) changes nothing the host shows.
            let message = Self.message(seen.message)
            guard !Self.isKeptOutOfTheThread(seen.message), message.direction == .toAgent, let statistics = seen.message.userStatistics,
                let at = statistics.readAt ?? statistics.seenAt
            else {
                return (nil, "MessageSeenChanged of a message the agent has not seen")
            }
            var read = message
            read.readByAgentAt = UnixTime(secondsSince1970: at.timeIntervalSince1970)
            return (.messageRead(read), nil)
        case .transcriptSent:
            return (nil, nil)  // the session answers the request (ChatSession+Transcript)
        case .moreMessagesLoaded:
            return (nil, nil)  // the session answers the request (ChatSession+Older)
        case .tokenRefreshed(let refreshed):
            return (.tokenRefreshed(Self.token(refreshed.accessToken, now: now)), nil)
        case .unknown(let eventType):
            return (nil, "an event of unknown type \(eventType)")
        }
    }

    // MARK: Models

    static func id(_ id: CXoneID) -> String { id.rawValue.lowercased() }

    /// A welcome message's `{{name|fallback}}` placeholders, filled from `values` or with their fallback
    /// (the SDK fills customer and contact fields; the daemon knows none of them before the chat starts).
    package static func fillingPlaceholders(_ text: String, values: [String: String] = [:]) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            result += rest[..<open.lowerBound]
            let inside = rest[open.upperBound..<close.lowerBound]
            let parts = inside.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0].drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            result += values[name] ?? (parts.count > 1 ? String(parts[1]) : "")
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    static func identity(_ identity: CXoneWire.CustomerIdentity) -> ChatStateMachine.CustomerIdentity {
        ChatStateMachine.CustomerIdentity(id: identity.idOnExternalPlatform.rawValue, firstName: identity.firstName, lastName: identity.lastName)
    }

    static func token(_ token: CXoneWire.AccessToken, now: UnixTime) -> ChannelToken {
        let issued = token.currentDate.map { UnixTime(secondsSince1970: $0.timeIntervalSince1970) } ?? now
        return ChannelToken(value: token.token.value, expiresAt: issued + .seconds(token.expiresIn))
    }

    static func party(_ agent: CXoneWire.Agent) -> Party {
        Party(displayName: agent.displayName ?? "Agent", address: "cxone-agent:\(agent.id)")
    }

    /// A thread as the host sees it: its messages oldest first, without those the SDK keeps out of it.
    /// An inactivity popup is shown only when it is the thread's latest message, which nobody has
    /// answered yet: the SDK keeps popups out of a thread's messages (`ChatThread.updated`) and hands on
    /// only that one, as the popup to answer (`ChatThreadListService.processThreadRecoveredEvent`, CXone
    /// mobile SDK 3.3.1). An older one has been answered or has expired.
    static func thread(_ thread: CXoneWire.Thread, messages: [CXoneWire.Message], state: ThreadState) -> ChatThread {
        let sorted = messages.sorted { $0.createdAt < $1.createdAt }
        let latest = sorted.last?.idOnExternalPlatform
        let ordered = sorted.filter {
            !Self.isKeptOutOfTheThread($0) && (!Self.isInactivityPopup($0) || $0.idOnExternalPlatform == latest)
        }
        return ChatThread(
            id: Self.id(thread.idOnExternalPlatform),
            name: thread.threadName ?? "",
            state: state,
            lastMessages: ordered.map(Self.message)
        )
    }

    /// The `parameters` that make a text message one the SDK keeps out of the thread
    /// (`ChatThreadService.shouldIgnoreMessage`, `ChatThread.updated`, `processMoreMessagesLoaded`; CXone
    /// mobile SDK 3.3.1, `MessageParameter`): the live chat's opening (`isInitialMessage`), the answer to a
    /// message the app cannot show (`isUnsupportedMessageTypeAnswer`) and to the inactivity popup
    /// (`isInactivityPopupAnswer`). The SDK sends these itself and never shows them, neither when sent nor
    /// when they come back (MessageCreated, a recovered thread, an older page, a read or seen receipt).
    package static let keptOutParameters = ["isInitialMessage", "isUnsupportedMessageTypeAnswer", "isInactivityPopupAnswer"]

    /// Whether the SDK keeps `message` out of the thread: a text message with one of
    /// ``keptOutParameters`` set to `true` (the SDK's `hasOneOf`).
    package static func isKeptOutOfTheThread(_ message: CXoneWire.Message) -> Bool {
        guard message.messageContent.type == "TEXT", let parameters = message.messageContent.parameters else { return false }
        return Self.keptOutParameters.contains { parameters[$0] == .bool(true) }
    }

    static func isInactivityPopup(_ message: CXoneWire.Message) -> Bool {
        if case .inactivityPopup? = message.messageContent.richContent { return true }
        return false
    }

    static func message(_ message: CXoneWire.Message) -> ChatMessage {
        let sender: Party
        let direction: ChatMessage.Direction
        if message.direction.isFromCustomer {
            direction = .toAgent
            let name = [message.authorEndUserIdentity?.firstName, message.authorEndUserIdentity?.lastName].compactMap { $0 }.joined(separator: " ")
            sender = Party(displayName: name, address: message.authorEndUserIdentity?.idOnExternalPlatform.rawValue ?? "")
        } else {
            direction = .fromAgent
            sender = message.authorUser.map(Self.party) ?? Party(displayName: "Agent", address: "")
        }
        let rich = Self.offer(message.messageContent)
        let text =
            rich?.text ?? message.messageContent.text ?? message.messageContent.fallbackText
            ?? "(\(message.messageContent.type.lowercased()) message)"
        var mapped = ChatMessage(
            id: Self.id(message.idOnExternalPlatform),
            threadID: Self.id(message.threadIdOnExternalPlatform),
            kind: rich?.kind ?? .message,
            direction: direction,
            sender: sender,
            text: text,
            sentAt: UnixTime(secondsSince1970: message.createdAt.timeIntervalSince1970)
        )
        mapped.choices = rich?.choices.map(\.choice) ?? []
        mapped.attachments = Self.files(of: message).map(\.shown)
        // The customer's message with a read receipt (`userStatistics.readAt`): the agent read it.
        if direction == .toAgent, let read = message.userStatistics?.readAt {
            mapped.readByAgentAt = UnixTime(secondsSince1970: read.timeIntervalSince1970)
        }
        return mapped
    }
}
