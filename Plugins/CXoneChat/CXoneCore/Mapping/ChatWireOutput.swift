import AttendantPluginAPI
import FoundationEssentials

/// Turns the chat state machine's commands into gateway frames (``CXoneOutbound``).
package enum ChatWireOutput {
    /// Who is talking to which channel: what every frame carries.
    package struct Context: Sendable, Hashable {
        package var brandID: Int
        package var channelID: String
        package var customer: ChatStateMachine.CustomerIdentity
        package var visitorID: String?
        /// The access token, sent with messages when the channel uses OAuth.
        package var accessToken: String?
        /// The SDK version reported in AuthorizeCustomer.
        package var sdkVersion: String

        package init(
            brandID: Int,
            channelID: String,
            customer: ChatStateMachine.CustomerIdentity,
            visitorID: String? = nil,
            accessToken: String? = nil,
            sdkVersion: String
        ) {
            self.brandID = brandID
            self.channelID = channelID
            self.customer = customer
            self.visitorID = visitorID
            self.accessToken = accessToken
            self.sdkVersion = sdkVersion
        }
    }

    /// The frame for `command`, with `eventID` so the answer can be matched to it.
    package static func frame(for command: ChatStateMachine.Command, context: Context, eventID: CXoneID = .random()) -> CXoneOutbound {
        let event: CXoneSentEvent
        var destination: CXoneID?
        switch command {
        case .heartbeat:
            return .heartbeat
        case .authorizeCustomer(let code, let verifier):
            event = .authorizeCustomer(
                CXoneWire.AuthorizeCustomer(
                    authorizationCode: code.map(CXoneSecret.init),
                    codeVerifier: verifier.map(CXoneSecret.init),
                    sdkVersion: context.sdkVersion
                )
            )
        case .reconnectCustomer(let token):
            event = .reconnectCustomer(CXoneWire.TokenData(token: CXoneSecret(token)))
        case .refreshToken(let token):
            // `{"accessToken": {"token"}}`, the SDK's RefreshTokenPayloadDataDTO.
            event = .refreshToken(CXoneWire.TokenData(token: CXoneSecret(token)))
        case .recoverThread(let threadID):
            event = .recoverThread(threadID.map { CXoneWire.ThreadData(threadId: CXoneID($0)) })
        case .recoverLivechat(let threadID):
            event = .recoverLivechat(threadID.map { CXoneWire.ThreadData(threadId: CXoneID($0)) })
        case .fetchThreadList:
            event = .fetchThreadList
        case .loadThreadMetadata(let threadID):
            event = .loadThreadMetadata(CXoneWire.ThreadData(threadId: CXoneID(threadID)))
        case .sendMessage(let threadID, let messageID, let text, let customFields):
            event = Self.sendMessage(threadID: threadID, messageID: messageID, text: text, customFields: customFields, [], context: context)
            destination = CXoneID(threadID)
        case .sendFiles(let threadID, let messageID, let text, let customFields, let attachments):
            event = Self.sendMessage(threadID: threadID, messageID: messageID, text: text, customFields: customFields, attachments, context: context)
            destination = CXoneID(threadID)
        case .sendAnswer(let threadID, let messageID, let text, let answer):
            destination = CXoneID(threadID)
            event = .sendMessage(
                CXoneWire.SendMessage(
                    thread: CXoneWire.ThreadReference(idOnExternalPlatform: CXoneID(threadID)),
                    messageContent: .answer(text, postback: answer.postback, isInactivityPopupAnswer: answer.isInactivityPopupAnswer),
                    idOnExternalPlatform: CXoneID(messageID),
                    accessToken: context.accessToken.map(CXoneSecret.init)
                )
            )
        case .sendOutbound(let threadID, let messageID, let text):
            destination = CXoneID(threadID)
            event = .sendOutbound(
                CXoneWire.SendOutbound(
                    thread: CXoneWire.ThreadReference(idOnExternalPlatform: CXoneID(threadID)),
                    messageContent: .text(text),
                    idOnExternalPlatform: CXoneID(messageID),
                    accessToken: context.accessToken.map(CXoneSecret.init)
                )
            )
        case .endContact(let threadID, let caseID):
            destination = CXoneID(threadID)
            event = .endContact(CXoneWire.EndContact(threadId: CXoneID(threadID), contactId: CXoneID(caseID)))
        case .senderTyping(let threadID, let started):
            destination = CXoneID(threadID)
            let data = CXoneWire.ThreadData(threadId: CXoneID(threadID))
            event = started ? .senderTypingStarted(data) : .senderTypingEnded(data)
        case .messageSeenByCustomer(let threadID):
            destination = CXoneID(threadID)
            event = .messageSeenByCustomer(CXoneWire.ThreadData(threadId: CXoneID(threadID)))
        case .loadMoreMessages(let threadID, let scrollToken, let oldest):
            destination = CXoneID(threadID)
            event = .loadMoreMessages(
                CXoneWire.LoadMoreMessages(
                    scrollToken: scrollToken,
                    thread: CXoneWire.ThreadReference(idOnExternalPlatform: CXoneID(threadID)),
                    oldestMessageDatetime: Date(timeIntervalSince1970: oldest.secondsSince1970)
                )
            )
        case .sendTranscript(let caseID, let email):
            event = .sendTranscript(CXoneWire.SendTranscript(contactId: CXoneID(caseID), email: email))
        }
        let customer = CXoneWire.CustomerIdentity(
            idOnExternalPlatform: CXoneID(context.customer.id),
            firstName: context.customer.firstName,
            lastName: context.customer.lastName
        )
        return .frame(
            CXoneClientFrame(
                eventId: eventID,
                brandId: context.brandID,
                channelId: context.channelID,
                customer: customer,
                visitorId: context.visitorID.map { CXoneID($0) },
                destinationId: destination,
                event: event
            )
        )
    }

    /// SendMessage: the text, the new thread's custom fields, and the files uploaded for it, each as the
    /// SDK's AttachmentDTO (the upload's `fileUrl`, a friendly name, the type, the file's name).
    static func sendMessage(
        threadID: String,
        messageID: String,
        text: String,
        customFields: [String: String],
        _ attachments: [ChatStateMachine.SentFile],
        context: Context
    ) -> CXoneSentEvent {
        let fields = customFields.sorted { $0.key < $1.key }.map { CXoneWire.CustomField(ident: $0.key, value: $0.value) }
        return .sendMessage(
            CXoneWire.SendMessage(
                thread: CXoneWire.ThreadReference(idOnExternalPlatform: CXoneID(threadID)),
                messageContent: .text(text),
                idOnExternalPlatform: CXoneID(messageID),
                contact: CXoneWire.CustomFields(customFields: fields),
                attachments: attachments.map { CXoneWire.Attachment(url: $0.url, friendlyName: $0.name, mimeType: $0.mimeType, fileName: $0.name) },
                accessToken: context.accessToken.map(CXoneSecret.init)
            )
        )
    }

    /// The thread a command is about, for matching its answer (ThreadMetadataLoaded names none).
    package static func request(for command: ChatStateMachine.Command) -> ChatWireInput.Request {
        switch command {
        case .recoverThread(let id), .recoverLivechat(let id): ChatWireInput.Request(threadID: id)
        case .loadThreadMetadata(let id): ChatWireInput.Request(threadID: id)
        case .sendMessage(let id, let messageID, _, _), .sendFiles(let id, let messageID, _, _, _), .sendOutbound(let id, let messageID, _),
            .sendAnswer(let id, let messageID, _, _):
            ChatWireInput.Request(threadID: id, messageID: messageID)
        case .endContact(let id, _): ChatWireInput.Request(threadID: id)
        case .authorizeCustomer, .reconnectCustomer, .refreshToken, .fetchThreadList, .heartbeat, .sendTranscript:
            ChatWireInput.Request(threadID: nil)
        case .senderTyping(let id, _), .messageSeenByCustomer(let id), .loadMoreMessages(let id, _, _): ChatWireInput.Request(threadID: id)
        }
    }
}

extension ChatWireOutput.Context {
    /// The context of `machine`'s frames: its brand, channel and stored identities, with the customer's
    /// name; nil before the chat is prepared.
    package init?(machine: ChatStateMachine, firstName: String?, lastName: String?, sdkVersion: String) {
        guard let brandID = machine.brandID, let channelID = machine.channelID else { return nil }
        self.init(
            brandID: brandID,
            channelID: channelID,
            customer: ChatStateMachine.CustomerIdentity(id: machine.stored.customerID ?? "", firstName: firstName, lastName: lastName),
            visitorID: machine.stored.visitorID,
            accessToken: machine.messageToken,
            sdkVersion: sdkVersion
        )
    }
}

extension ChatWireOutput {
    /// The REST body of an analytics event the machine sends (``ChatStateMachine/Action/sendAnalytics(brandID:visitorID:_:)``).
    package static func analytics(_ event: ChatStateMachine.AnalyticsEvent, visitorID: String) -> CXoneWire.AnalyticsEvent {
        let destination = CXoneID(visitorID)
        func date(_ time: UnixTime) -> Date { Date(timeIntervalSince1970: time.secondsSince1970) }
        switch event {
        case .visitorVisit(let visitID, let at):
            return .visitorVisit(visitId: CXoneID(visitID), destinationId: destination, at: date(at))
        case .pageView(let visitID, let title, let url, let at):
            return .pageView(title: title, url: url, visitId: CXoneID(visitID), destinationId: destination, at: date(at))
        case .pageViewEnded(let visitID, let title, let url, let seconds, let at):
            return .timeSpentOnPage(title: title, url: url, seconds: seconds, visitId: CXoneID(visitID), destinationId: destination, at: date(at))
        }
    }
}
