package import AttendantPluginAPI
@_spi(Experimental) package import AttendantPluginKit

// The CometD session the chat session holds: what the channel asks of it, what its transports bring, and
// what it reports, as the chat's steps.
extension GMSChatSession {
    // MARK: The channel's requests

    /// `listen()`: the chat's channel subscribed (v2 its service's, v1 `/_genesys`), a CometD session
    /// started unless one runs, and request `id` waiting for its first connect, for at most `timeout`.
    package mutating func listen(_ id: UInt64, timeout: Duration, now: UnixTime) -> [Action] {
        _ = self.presence.enterForeground()
        let channel = self.settings.apiVersion == 1 ? GMSChatInbound.genesysChannel : GMSChatInbound.serviceChannel(self.settings.service)
        let actions = self.bayeux(now: now) { $0.subscribe(channel) + $0.start(now: now.elapsed) }
        return actions + self.awaitConnect(id, timeout: timeout)
    }

    /// Back in the foreground: a new CometD session, which asks GMS for everything after the position.
    package mutating func startSession(now: UnixTime) -> [Action] {
        self.bayeux(now: now) { $0.start(now: now.elapsed) }
    }

    /// Publishes a v2 operation on the chat's service channel; request `id` hears GMS's acknowledgement,
    /// or that `what` (`requesting a chat from`) the server failed.
    package mutating func publish(_ data: JSONValue, what: String, _ id: UInt64, now: UnixTime) -> [Action] {
        self.publish(data, .caller(id, what: what, reply: .done), now: now)
    }

    /// Says goodbye with `/meta/disconnect` carrying the highest position shown (`ext.transcriptPosition`,
    /// a string as in the seed); request `id` hears once the session ended (answered, not in time, or
    /// there was none).
    package mutating func disconnect(_ id: UInt64, now: UnixTime) -> [Action] {
        self.disconnecting.append(id)
        let ext: [String: JSONValue] = ["transcriptPosition": .string(String(self.transcript.shown))]
        return self.bayeux(now: now) { $0.disconnect(ext: ext, now: now.elapsed) }
    }

    // MARK: What the transports bring

    /// What the WebSocket (the driver's link) brings as the session's step, for the driver's link handler:
    /// a batch is decoded here, outside the session's lock, with `transport`'s limits.
    package static func step(
        for event: LinkEvent,
        _ transport: BayeuxTransport.Configuration,
        now: UnixTime
    ) -> ((inout GMSChatSession) -> [Action])? {
        switch event {
        case .opened:
            return { $0.linkOpened(now: now) }
        case .message(let bytes):
            let answer = transport.read(bytes)
            return { $0.linkMessage(answer, now: now) }
        case .closed(let reason):
            return { $0.linkClosed(reason, now: now) }
        @unknown default:
            return nil
        }
    }

    /// The WebSocket (the driver's link) opened.
    package mutating func linkOpened(now: UnixTime) -> [Action] {
        self.bayeux(now: now) { $0.linkOpened() }
    }

    /// The WebSocket closed, or never opened.
    package mutating func linkClosed(_ reason: String, now: UnixTime) -> [Action] {
        self.bayeux(now: now) { $0.linkClosed(reason, now: now.elapsed) }
    }

    /// A message on the WebSocket, read outside the lock (``BayeuxTransport/Configuration/read(_:)``).
    package mutating func linkMessage(_ answer: BayeuxAnswer, now: UnixTime) -> [Action] {
        self.bayeux(now: now) { $0.received(answer, now: now.elapsed) }
    }

    /// What a long-polling POST brought, read outside the lock.
    package mutating func posted(_ post: BayeuxPost, _ answer: BayeuxAnswer, now: UnixTime) -> [Action] {
        self.bayeux(now: now) { $0.posted(post, answer, now: now.elapsed) }
    }

    /// `chat status`: the chat's fields, the CometD session's at `now`, and where GMS is.
    package func status(now: UnixTime) -> [String: String] {
        var fields = self.statusFields().merging(self.bayeux.status(now: now.elapsed).fields) { _, bayeux in bayeux }
        fields["server"] = self.settings.baseURL
        fields["api-version"] = String(self.settings.apiVersion)
        fields["service"] = self.settings.service
        return fields
    }

    // MARK: What the CometD session reports

    /// Runs a step of the transport and turns what it reports into the chat's steps.
    mutating func bayeux(now: UnixTime, _ body: (inout BayeuxTransport) -> [BayeuxTransport.Output]) -> [Action] {
        var actions: [Action] = []
        for output in body(&self.bayeux) {
            if case .event(let event) = output {
                actions += self.heard(event, now: now)
            } else if let action = output.action(timer: Timer.bayeux, work: Work.post) {
                actions.append(action)
            }
        }
        return actions
    }

    mutating func heard(_ event: BayeuxTransport.Event, now: UnixTime) -> [Action] {
        switch event {
        case .handshook:
            return self.handshook()
        case .connected:
            return self.connected(over: self.bayeux.machine.status.connectionType.rawValue)
        case .interrupted(let failure):
            return self.interrupted(failure.description)
        case .transportChanged(let type):
            return self.transportChanged(to: type.rawValue)
        case .delivered(let message):
            guard let data = message.data else { return [] }
            let inbound = GMSChatInbound(channel: message.channel, data: data, apiVersion: self.settings.apiVersion, service: self.settings.service)
            return self.received(inbound, now: now)
        case .published(let id, let result):
            guard let purpose = self.publishes.removeValue(forKey: id) else { return [] }
            guard case .failure(let failure) = result else { return self.published(purpose, failure: nil) }
            return self.published(purpose, failure: "\(failure)")
        case .stopped(let failure):
            defer { self.disconnecting = [] }
            return self.stopped(failure?.description) + self.disconnecting.map { .replied($0, .success(.done)) }
        }
    }
}
