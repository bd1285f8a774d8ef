import Synchronization

/// The Bayeux 1.0 server: handshake, connect (held, one per client), subscribe, publish, disconnect and
/// the client window. Every function here runs under the state's lock and returns the I/O to do after it.
extension GMSChatServer {
    /// Where a batch of messages came from.
    enum BayeuxOrigin {
        case longPoll(HTTPConnectionLink?)
        case socket(BayeuxSocket)
    }

    static let unknownClientError: GMSJSON = "402::Unknown client"

    /// GMS's answer for a `clientId` it does not know (old CometD's text; CometD ≥ 4.0.4 says `session_unknown`).
    static func unknownClient(_ channel: String, id: GMSJSON?) -> GMSJSON {
        var reply: GMSJSON = [
            "channel": .string(channel), "successful": false, "error": unknownClientError,
            "advice": ["reconnect": "handshake", "interval": 0],
        ]
        reply["id"] = id
        return reply
    }

    static func reply(to message: GMSJSON, _ fields: [String: GMSJSON]) -> GMSJSON {
        var reply = GMSJSON.object(fields)
        reply["channel"] = message["channel"] ?? ""
        reply["id"] = message["id"]
        return reply
    }

    var advice: GMSJSON {
        [
            "reconnect": "retry", "interval": 0,
            "timeout": .int(Self.milliseconds(self.settings.connectHold)),
            "maxInterval": .int(Self.milliseconds(self.settings.clientWindow)),
        ]
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: Handshake

    func handshake(_ message: GMSJSON, gmsUser: String?, origin: BayeuxOrigin, _ state: inout State) -> (GMSJSON, [GMSEffect]) {
        let offered = message["supportedConnectionTypes"]?.array?.compactMap(\.string) ?? []
        let supported = self.settings.webSocket ? ["long-polling", "websocket"] : ["long-polling"]
        guard offered.contains(where: supported.contains) else {
            let error = "400::no connection type shared: the client offers \(offered), GMS supports \(supported)"
            return (
                Self.reply(
                    to: message,
                    [
                        "successful": false, "error": .string(error), "supportedConnectionTypes": .array(supported.map { .string($0) }),
                        "advice": ["reconnect": "none", "interval": 0],
                    ]
                ), []
            )
        }
        var client = BayeuxClient(id: GMSIdentifiers.clientID(), gmsUser: gmsUser)
        if case .socket(let socket) = origin { client.socket = socket }
        state.clients[client.id] = client
        state.counters.handshakes += 1
        let reply = Self.reply(
            to: message,
            [
                "successful": true, "version": "1.0", "minimumVersion": "1.0",
                "supportedConnectionTypes": .array(supported.map { .string($0) }),
                "clientId": .string(client.id), "advice": self.advice,
            ]
        )
        return (reply, [.expireLater(client: client.id, epoch: 0)])
    }

    // MARK: Connect

    /// A `/meta/connect`: answered at once when events are queued, on the client's first connect and
    /// when the client asks for `advice.timeout` 0; else held until an event, the hold's end, or the next
    /// connect (which answers this one, without events: they go with the newer connect).
    func connect(_ message: GMSJSON, gmsUser: String?, waiter: BayeuxWaiter, _ state: inout State) -> [GMSEffect] {
        guard let id = message["clientId"]?.string, var client = state.clients[id] else {
            state.counters.unknownClientReplies += 1
            return [Self.finish(waiter, [Self.unknownClient("/meta/connect", id: message["id"])])]
        }
        state.counters.connects += 1
        var effects: [GMSEffect] = []
        if let old = client.held {
            effects.append(Self.finish(old.waiter, [old.reply]))
            client.held = nil
        }
        if let gmsUser { client.gmsUser = gmsUser }
        if case .socket(let socket) = waiter { client.socket = socket }
        client.epoch += 1
        var hold = self.settings.connectHold
        if let timeout = message["advice"]?["timeout"]?.intOrNumericString { hold = min(hold, .milliseconds(max(0, timeout))) }
        if !client.hasConnected { hold = .zero }
        client.hasConnected = true
        let reply = Self.reply(to: message, ["successful": true, "clientId": .string(id), "advice": self.advice])
        if !client.queue.isEmpty || hold == .zero {
            effects.append(Self.finish(waiter, [reply] + client.queue))
            effects.append(.expireLater(client: id, epoch: client.epoch))
            client.queue = []
        } else {
            client.held = BayeuxHeldConnect(epoch: client.epoch, reply: reply, waiter: waiter)
            effects.append(.answerHeldLater(client: id, epoch: client.epoch, hold: hold))
            if case .longPoll(_, let link?) = waiter { effects.append(.watchClose(link, client: id, epoch: client.epoch)) }
        }
        state.clients[id] = client
        return effects
    }

    static func finish(_ waiter: BayeuxWaiter, _ messages: [GMSJSON]) -> GMSEffect {
        switch waiter {
        case .longPoll(let continuation, _): .resume(continuation, .answer(messages))
        case .socket(let socket): .send(socket, messages)
        }
    }

    /// The hold ran out: the connect is answered with whatever is queued (nothing, normally).
    func answerHeld(client id: String, epoch: Int, _ state: inout State) -> [GMSEffect] {
        guard var client = state.clients[id], let held = client.held, held.epoch == epoch else { return [] }
        client.held = nil
        let effects = [Self.finish(held.waiter, [held.reply] + client.queue), .expireLater(client: id, epoch: epoch)]
        client.queue = []
        state.clients[id] = client
        return effects
    }

    /// A held long-poll's connection closed: the long-poll has ended, unanswered; events stay queued.
    func longPollClosed(client id: String, epoch: Int, _ state: inout State) -> [GMSEffect] {
        guard let held = state.clients[id]?.held, held.epoch == epoch, case .longPoll(let continuation, _) = held.waiter else { return [] }
        state.clients[id]?.held = nil
        return [.resume(continuation, .drop), .expireLater(client: id, epoch: epoch)]
    }

    func socketClosed(_ socket: BayeuxSocket, _ state: inout State) -> [GMSEffect] {
        state.sockets[socket.id] = nil
        var effects: [GMSEffect] = []
        for id in Array(state.clients.keys) where state.clients[id]?.socket?.id == socket.id {
            state.clients[id]?.socket = nil
            if let held = state.clients[id]?.held, case .socket = held.waiter {
                state.clients[id]?.held = nil
                effects.append(.expireLater(client: id, epoch: held.epoch))
            }
        }
        return effects
    }

    /// The client window ran out with no newer connect: the client is destroyed, its chats stay.
    func expire(client id: String, epoch: Int, _ state: inout State) {
        guard let client = state.clients[id], client.epoch == epoch, client.held == nil else { return }
        state.clients[id] = nil
        state.counters.clientsExpired += 1
    }

    // MARK: Delivery

    /// Hands an event to a client: it answers the held connect, or is pushed on the client's socket, or
    /// waits in the queue for the next connect. Nothing is dropped while the client lives.
    func deliver(_ event: GMSJSON, to id: String, _ state: inout State) -> [GMSEffect] {
        guard var client = state.clients[id] else { return [] }
        defer { state.clients[id] = client }
        if let held = client.held {
            client.held = nil
            let effects = [Self.finish(held.waiter, [held.reply] + client.queue + [event]), .expireLater(client: id, epoch: held.epoch)]
            client.queue = []
            return effects
        }
        if let socket = client.socket {
            let effects: [GMSEffect] = [.send(socket, client.queue + [event])]
            client.queue = []
            return effects
        }
        client.queue.append(event)
        return []
    }

    // MARK: Other messages

    /// Subscribe, unsubscribe, disconnect and publish. The answers, and the I/O to do.
    func handleMessage(_ message: GMSJSON, gmsUser: String?, origin: BayeuxOrigin, _ state: inout State) -> ([GMSJSON], [GMSEffect]) {
        let channel = message["channel"]?.string ?? ""
        guard !channel.isEmpty else {
            return ([Self.reply(to: message, ["successful": false, "error": "400::a Bayeux message needs a channel"])], [])
        }
        guard let id = message["clientId"]?.string, var client = state.clients[id] else {
            var effects: [GMSEffect] = []
            if channel == "/meta/disconnect", let position = message["ext"]?["transcriptPosition"] {
                // A client restoring a saved chat disconnects its old, forgotten clientId (with gms_user).
                state.counters.disconnects.append(.init(clientID: message["clientId"]?.string ?? "", transcriptPosition: position.text))
                if let gmsUser, let at = position.intOrNumericString { effects = self.goAway(client: nil, gmsUser: gmsUser, position: at, &state) }
            }
            state.counters.unknownClientReplies += 1
            return ([Self.unknownClient(channel, id: message["id"])], effects)
        }
        if let gmsUser { client.gmsUser = gmsUser }
        if case .socket(let socket) = origin { client.socket = socket }
        state.clients[id] = client
        switch channel {
        case "/meta/subscribe", "/meta/unsubscribe":
            let subscription = message["subscription"] ?? .null
            let names = subscription.array?.compactMap(\.string) ?? subscription.string.map { [$0] } ?? []
            guard !names.isEmpty else {
                return ([Self.reply(to: message, ["successful": false, "error": "400::missing subscription", "clientId": .string(id)])], [])
            }
            var effects: [GMSEffect] = []
            for name in names where !name.hasPrefix("/service/") {
                if channel == "/meta/subscribe" {
                    state.clients[id]?.subscriptions.insert(name)
                    if BayeuxClient.pattern(name, matches: Self.v1Channel) { effects += self.comeBackV1(client: id, &state) }
                } else {
                    state.clients[id]?.subscriptions.remove(name)
                }
            }
            return ([Self.reply(to: message, ["successful": true, "subscription": subscription, "clientId": .string(id)])], effects)
        case "/meta/disconnect":
            return ([Self.reply(to: message, ["successful": true, "clientId": .string(id)])], self.disconnect(message, client: id, &state))
        case let meta where meta.hasPrefix("/meta/"):
            return ([Self.reply(to: message, ["successful": false, "error": .string("400::unknown meta channel \(meta)")])], [])
        default:
            let ack = Self.reply(to: message, ["successful": true])
            if channel.hasPrefix(Self.v2ChannelPrefix) {
                return ([ack], self.v2Operation(message, client: id, &state))
            }
            if channel.hasPrefix("/service/") { return ([ack], []) }
            var event: GMSJSON = ["channel": .string(channel), "data": message["data"] ?? .null]
            event["ext"] = message["ext"]
            var effects: [GMSEffect] = []
            for other in state.clients.keys.sorted() where state.clients[other]?.isSubscribed(to: channel) == true {
                effects += self.deliver(event, to: other, &state)
            }
            return ([ack], effects)
        }
    }

    /// `/meta/disconnect`: the client ends (its held connect is answered). With `ext.transcriptPosition`
    /// (GMS's background protocol) the client's chats are flagged "customer not online" first.
    func disconnect(_ message: GMSJSON, client id: String, _ state: inout State) -> [GMSEffect] {
        guard let client = state.clients.removeValue(forKey: id) else { return [] }
        var effects: [GMSEffect] = []
        if let held = client.held { effects.append(Self.finish(held.waiter, [held.reply])) }
        let position = message["ext"]?["transcriptPosition"]
        state.counters.disconnects.append(.init(clientID: id, transcriptPosition: position?.text))
        if let at = position?.intOrNumericString { effects += self.goAway(client: id, gmsUser: client.gmsUser, position: at, &state) }
        return effects
    }
}
