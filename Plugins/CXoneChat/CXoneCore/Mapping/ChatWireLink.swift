package import AttendantPluginAPI

/// One socket's worth of the gateway's conversation: the frames for the machine's commands, with the
/// requests whose answers must be matched remembered by `eventId`, and each frame from the gateway turned
/// into what it means for the machine. A new socket starts a new link.
package struct ChatWireLink: Sendable {
    /// What a frame from the gateway means for the machine.
    package enum Meaning: Sendable {
        case input(ChatStateMachine.Input)
        /// The gateway refused a message the user sent (``ChatStateMachine/messageRefused(messageID:_:transient:)``).
        case refusal(messageID: String, ChatError, transient: Bool)
        case nothing
    }

    /// Requests whose answers are matched to them (LoadThreadMetadata, RecoverThread, messages), by `eventId`.
    var requests: [CXoneID: ChatWireInput.Request] = [:]
    /// EventInS3 notices by URL, until their body is downloaded.
    var largeEvents: [String: CXoneWire.EventInS3] = [:]

    package init() {}

    /// The encoded frame for `command`; its request is remembered when its answer is to be matched.
    package mutating func frame(
        for command: ChatStateMachine.Command,
        context: ChatWireOutput.Context,
        eventID: CXoneID = .random()
    ) throws -> [UInt8] {
        switch command {
        case .loadThreadMetadata, .recoverThread, .recoverLivechat, .sendMessage, .sendOutbound, .sendAnswer:
            self.requests[eventID] = ChatWireOutput.request(for: command)
        default:
            break
        }
        return try ChatWireOutput.frame(for: command, context: context, eventID: eventID).encoded()
    }

    /// What `inbound` means, matched to the request it answers. `ignored` says what was left unused: an
    /// event type this version does not know (`unknown`) is worth a line in the log, known ones it does
    /// not use are not.
    package mutating func receive(_ inbound: CXoneInbound, now: UnixTime) -> (meaning: Meaning, ignored: (text: String, unknown: Bool)?) {
        let request = inbound.answeredRequestId.flatMap { self.requests.removeValue(forKey: $0) }
        if case .eventInS3(let large)? = inbound.receivedEvent { self.largeEvents[large.url] = large }
        if let refusal = ChatWireInput.refusal(inbound, request: request) {
            return (.refusal(messageID: refusal.messageID, refusal.error, transient: refusal.transient), nil)
        }
        let (input, ignored) = ChatWireInput.input(for: inbound, request: request, now: now)
        var unknown = false
        if case .unknown? = inbound.receivedEvent { unknown = true }
        return (input.map(Meaning.input) ?? .nothing, ignored.map { ($0, unknown) })
    }

    /// The notice of the large event whose body is at `url`.
    package func largeEvent(at url: String) -> CXoneWire.EventInS3? {
        self.largeEvents[url]
    }

    /// The large event at `url` is downloaded (or failed): forget its notice.
    package mutating func downloaded(_ url: String) {
        self.largeEvents.removeValue(forKey: url)
    }
}
