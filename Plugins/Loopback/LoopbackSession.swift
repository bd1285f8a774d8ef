package import AttendantPluginAPI
package import AttendantPluginKit

/// Everything the Loopback channel decides, as one pure value: the kit's ``ChannelSession``, driven by
/// ``LoopbackChannel`` through a ``SessionDriver``.
///
/// A step takes an event (a call of the host, a request, a timer that fired) with the time it happened,
/// changes the session and returns ``SessionAction``s: no I/O, no clock, no tasks. The driver carries them
/// out: timers on the host's clock, events, log lines and store writes in order on its worker, replies to
/// the request's caller. So every rule below is tested by calling a step and reading what it returns.
///
/// - Listening: ``listen(_:nextContact:)`` fails on purpose for the first `listen-failures` attempts;
///   then the session listens, and with `contact-interval` the ``Timer/tick`` rings a contact each time.
/// - Contacts ring until `accept`, `decline` or their ``Timer/ringTimeout(contactID:)`` (missed).
/// - Chat requests go to ``LoopbackChat``; with `echo-agent`, each message sent (a choice and a file
///   too) arms an ``Timer/echo(messageID:)``, whose firing is the scripted agent's answer
///   (``LoopbackAgent``).
/// - ``stop()`` cancels every timer, so nothing rings or answers after a stop; with `stop-delay` it leaves
///   the worker ``Work/linger(_:)`` for that long.
package struct LoopbackSession: ChannelSession {
    package typealias Action = SessionAction<Timer, Work>

    /// The session's timers by what they are for: arming one again replaces it, and the driver never hands
    /// back a firing that was cancelled or replaced meanwhile.
    package enum Timer: Hashable, Sendable {
        /// The next contact of `contact-interval`.
        case tick
        /// A ringing contact becomes missed.
        case ringTimeout(contactID: String)
        /// The scripted agent answers the customer's message.
        case echo(messageID: String)
    }

    /// What the driver's worker does for the session, in order with its events and store writes.
    package enum Work: Sendable {
        /// `stop-delay`: hold the worker this long on the host's clock. The stop waits for the worker, so it
        /// takes this long, and cancelling its caller does not end the wait, as with a stuck plugin.
        case linger(Duration)
    }

    /// Where the channel is in its life.
    package enum Phase: Sendable {
        /// Before the first listen that worked, and after a stop: no tick, no contact ringing.
        case stopped
        /// Contacts ring on the tick and on request; keep-alives work.
        case listening
        /// A `drop` told the host the channel stopped listening, so it listens again soon; until then a
        /// keep-alive fails and `ring` is refused, but the tick still rings.
        case dropped
    }

    let configuration: LoopbackConfiguration
    package private(set) var phase = Phase.stopped
    package var listening: Bool { self.phase == .listening }
    private var listenAttempts = 0
    /// The number of the next contact, kept in the store under `next-contact` so ids are not reused.
    private var nextContact = 1
    /// The contacts ringing, each with its ``Timer/ringTimeout(contactID:)`` armed.
    private var ringing: Set<String> = []
    private var chat = LoopbackChat()
    /// The messages the scripted agent will answer, by id, each with its ``Timer/echo(messageID:)`` armed.
    private var echoes: [String: ChatMessage] = [:]

    package init(configuration: LoopbackConfiguration) {
        self.configuration = configuration
    }

    // MARK: The channel's life

    /// `listen()`, as request `id`: the number of the next contact comes from the store.
    package mutating func listen(_ id: UInt64, nextContact stored: Int) -> [Action] {
        self.listenAttempts += 1
        if self.listenAttempts <= self.configuration.listenFailures {
            // A reply, not a throw: the attempt counts.
            let message = "loopback: listen attempt \(self.listenAttempts) fails on purpose (listen-failures = \(self.configuration.listenFailures))"
            let error = ChannelError(self.configuration.listenFailure, message, retryAfter: self.configuration.listenRetryAfter)
            return [.replied(id, .failure(error))]
        }
        self.phase = .listening
        self.nextContact = max(self.nextContact, stored)
        var actions: [Action] = []
        if let interval = self.configuration.contactInterval { actions.append(.setTimer(.tick, after: interval)) }
        let contacts = self.configuration.contactInterval.map { "every \($0.seconds) s" } ?? "on request"
        return actions + [.log(.info, "loopback listening; contacts \(contacts)"), .replied(id, .success(.done))]
    }

    /// `stopListening()`: every timer is cancelled; the chat stays as it is.
    package mutating func stop() -> [Action] {
        self.phase = .stopped
        var actions: [Action] = [.cancelTimer(.tick)]
        actions += self.ringing.sorted().map { .cancelTimer(.ringTimeout(contactID: $0)) }
        actions += self.echoes.keys.sorted().map { .cancelTimer(.echo(messageID: $0)) }
        self.ringing = []
        self.echoes = [:]
        let delay = self.configuration.stopDelay
        if delay > .zero {
            actions += [.log(.info, "loopback stopping slowly (stop-delay = \(delay.seconds) s)"), .work(.linger(delay))]
        }
        return actions
    }

    /// A timer the session armed has fired (the driver hands back only the live arming); what it was for
    /// may be over meanwhile (a contact answered, a thread closed): then it does nothing.
    package mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
        switch timer {
        case .tick:
            guard self.phase != .stopped, let interval = self.configuration.contactInterval else { return [] }
            return self.ring(from: self.configuration.caller, summary: nil, now: now).actions + [.setTimer(.tick, after: interval)]
        case .ringTimeout(let contactID):
            guard self.ringing.remove(contactID) != nil else { return [] }
            return [.emit(.contactEnded(contactID: contactID, outcome: .missed))]
        case .echo(let messageID):
            guard let message = self.echoes.removeValue(forKey: messageID) else { return [] }
            return self.chat.agentReply(to: message, now: now).map { .emit($0) }
        }
    }

    /// Every request is answered in the step that begins it, so none is waiting to be forgotten.
    package mutating func forgetRequest(_ id: UInt64) {}

    // MARK: Requests

    /// A user's request, as request `id`; it throws when it cannot start. `report` reads the store, so the
    /// channel answers it.
    package mutating func perform(_ request: ChannelRequest, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action] {
        switch request {
        case .accept(let contactID):
            return try self.end(contactID, .answered) + [.replied(id, .success(.done))]
        case .decline(let contactID):
            return try self.end(contactID, .declined) + [.replied(id, .success(.done))]
        case .custom("ring", let arguments):
            guard self.phase == .listening else { throw ChannelError(.illegalState, "loopback: not listening, so nothing can ring") }
            var caller = self.configuration.caller
            if let name = arguments["caller"] { caller.displayName = name }
            let (contact, actions) = self.ring(from: caller, summary: arguments["summary"], now: now)
            return actions + [.replied(id, .success(.contact(contact)))]
        case .custom("drop", let arguments):
            self.phase = .dropped
            let error = ChannelError(.transient, "loopback: \(arguments["reason"] ?? "dropped on request")")
            return [.emit(.stoppedListening(error)), .replied(id, .success(.done))]
        default:
            if let actions = try self.chat(request, id, now: now) { return actions }
            throw ChannelError(
                .unsupported,
                "loopback: no \(request.name) requests here; it knows accept, decline, ring, drop, report and, with contact-kind = \"chat\", the chat requests"
            )
        }
    }

    /// A chat request on a chat channel: the chat's reply and events, and the agent's echo armed; nil for
    /// other requests.
    private mutating func chat(_ request: ChannelRequest, _ id: UInt64, now: UnixTime) throws(ChannelError) -> [Action]? {
        guard self.configuration.contactKind == .chat else {
            guard !LoopbackChat.handles(request) else {
                throw ChannelError(.unsupported, "loopback: no \(request.name) requests here; chat requests need contact-kind = \"chat\"")
            }
            return nil
        }
        guard let outcome = try self.chat.handle(request, now: now) else { return nil }
        var actions: [Action] = outcome.events.map { .emit($0) }
        if self.configuration.echoAgent, let sent = outcome.sent {
            self.echoes[sent.id] = sent
            actions.append(.setTimer(.echo(messageID: sent.id), after: self.configuration.echoDelay))
        }
        return actions + [.replied(id, .success(outcome.reply))]
    }

    // MARK: Contacts

    /// A new contact rings: its number is kept, its timeout armed, and the host hears of it.
    private mutating func ring(from caller: Party, summary: String?, now: UnixTime) -> (contact: Contact, actions: [Action]) {
        let number = self.nextContact
        self.nextContact += 1
        let kind = self.configuration.contactKind
        let contact = Contact(
            id: "loopback-\(number)",
            kind: kind,
            from: caller,
            summary: summary ?? "Loopback \(kind) number \(number)",
            receivedAt: now,
            actions: kind == .call ? [.accept, .decline] : [.open]
        )
        self.ringing.insert(contact.id)
        let kept = StoreWrite(.store, key: "next-contact", value: String(number + 1), what: "the next contact's number")
        return (
            contact,
            [.write(kept), .setTimer(.ringTimeout(contactID: contact.id), after: self.configuration.ringTimeout), .emit(.incomingContact(contact))]
        )
    }

    /// `accept` or `decline`.
    private mutating func end(_ contactID: String, _ outcome: ContactOutcome) throws(ChannelError) -> [Action] {
        guard self.ringing.remove(contactID) != nil else {
            throw ChannelError(.illegalState, "loopback: contact \(contactID) is not ringing")
        }
        return [.cancelTimer(.ringTimeout(contactID: contactID)), .emit(.contactEnded(contactID: contactID, outcome: outcome))]
    }
}
