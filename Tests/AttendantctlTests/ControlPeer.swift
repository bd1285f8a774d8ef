import AttendantControl
import Systemd

/// Stands in for attendantd's control service in these tests: it serves ``ControlInterface`` with the
/// interface's exact signatures on a bus, answers with the records it is given, records every call,
/// and answers with a D-Bus error where a test asks it to.
actor ControlPeer {
    struct Call: Sendable, Hashable, CustomStringConvertible {
        var member: String
        var arguments: [BusValue]
        var description: String { "\(self.member)(\(self.arguments.map(\.description).joined(separator: ", ")))" }
    }

    let connection: BusConnection
    private(set) var calls: [Call] = []
    var status: StatusRecord
    var channels: [ChannelRecord]
    var contacts: [ContactRecord]
    /// What the chat methods answer: `ChatListThreads` all, `ChatOpenThread` the one named,
    /// `ChatCreateThread` a new one named by its `name` field.
    var threads: [ChatThreadRecord] = Fixtures.threads
    /// What `ChannelRequest` answers, by command; a command without a reply is Unsupported.
    var replies: [String: [String: String]] = Fixtures.actionReplies
    /// Member → the error it answers with.
    var failures: [String: BusMethodError] = [:]

    private init(connection: BusConnection, status: StatusRecord, channels: [ChannelRecord], contacts: [ContactRecord]) {
        self.connection = connection
        self.status = status
        self.channels = channels
        self.contacts = contacts
    }

    /// Connects to `address`, takes the daemon's name and serves the interface.
    static func start(
        on address: String,
        status: StatusRecord = Fixtures.status,
        channels: [ChannelRecord] = Fixtures.channels,
        contacts: [ContactRecord] = Fixtures.contacts
    ) async throws -> ControlPeer {
        let connection = try await BusConnection.open(.custom(address), description: "control-peer")
        let peer = ControlPeer(connection: connection, status: status, channels: channels, contacts: contacts)
        guard try await connection.requestName(ControlInterface.busName) == .acquired else {
            throw BusError.malformed("\(ControlInterface.busName) is taken")
        }
        try await connection.export(Self.object(peer))
        return peer
    }

    func fail(_ member: String, _ name: String, _ message: String) {
        self.failures[member] = BusMethodError(name: name, message: message)
    }

    func set(channels: [ChannelRecord]) { self.channels = channels }

    func set(threads: [ChatThreadRecord]) { self.threads = threads }

    func set(reply fields: [String: String], for command: String) { self.replies[command] = fields }

    /// Leaves the bus, as a daemon that stops does.
    func stop() async { await self.connection.close() }

    func emit(_ signal: ControlSignal) async {
        let member: String
        let arguments: [BusValue]
        switch signal {
        case .channelEvent(let channel, let event, let details):
            member = ControlInterface.Signal.channelEvent
            arguments = [.string(channel), .string(event), .vardict(details)]
        case .channelStateChanged(let channel, let state, let detail):
            member = ControlInterface.Signal.channelStateChanged
            arguments = [.string(channel), .string(state), .string(detail)]
        case .doNotDisturbChanged(let on):
            member = ControlInterface.Signal.doNotDisturbChanged
            arguments = [.boolean(on)]
        }
        await self.connection.emit(path: ControlInterface.objectPath, interface: ControlInterface.interface, member: member, arguments: arguments)
    }

    private func handle(_ member: String, _ arguments: [BusValue]) async throws(BusMethodError) -> [BusValue] {
        self.calls.append(Call(member: member, arguments: arguments))
        if let failure = self.failures[member] { throw failure }
        switch member {
        case ControlInterface.Method.getStatus:
            return [self.status.busValue]
        case ControlInterface.Method.listChannels:
            return [.array(element: "a{sv}", self.channels.map(\.busValue))]
        case ControlInterface.Method.listContacts:
            let limit = Int(arguments[0].uint32 ?? 0)
            return [.array(element: "a{sv}", self.contacts.prefix(limit).map(\.busValue))]
        case ControlInterface.Method.reload:
            return [.string(self.status.status)]
        case ControlInterface.Method.setDoNotDisturb:
            let on = arguments[0].bool ?? false
            self.status.doNotDisturb = on
            await self.emit(.doNotDisturbChanged(on))
            return []
        case ControlInterface.Method.chatSendMessage:
            // "Later" waits in the outbox, as a message written while the chat reconnects does.
            let fields: [(String, String)] =
                arguments[2].string == "Later"
                ? [("delivery", "queued"), ("message", "m-2"), ("reason", "the chat is connecting"), ("thread", "t1")] : [("delivery", "sent")]
            return [.dictionary(key: "s", value: "s", fields.map { BusValue.Entry(.string($0.0), .string($0.1)) })]
        case ControlInterface.Method.chatListThreads:
            return [.array(element: "a{sv}", self.threads.map(\.busValue))]
        case ControlInterface.Method.chatOpenThread:
            guard let thread = self.threads.first(where: { $0.id == arguments[1].string }) else {
                throw BusMethodError(name: ControlError.serverError, message: "no thread \(arguments[1])")
            }
            return [thread.busValue]
        case ControlInterface.Method.chatCreateThread:
            let fields = (arguments[1].stringDictionary ?? [:]).compactMapValues(\.string)
            let thread = ChatThreadRecord(id: "thread-\(self.threads.count + 1)", name: fields["name"] ?? "", state: "pending")
            self.threads.append(thread)
            return [thread.busValue]
        case ControlInterface.Method.channelRequest:
            let command = arguments[1].string ?? ""
            guard let fields = self.replies[command] else {
                throw BusMethodError(name: ControlError.unsupported, message: "channel \(arguments[0]): no \(command) requests here")
            }
            return [.dictionary(key: "s", value: "s", fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) })]
        default:  // Accept, Decline, RenewToken, the other chat methods: recorded, nothing to answer.
            return []
        }
    }

    /// ``ControlInterface`` as a served object: the signatures the daemon's interface has.
    private static func object(_ peer: ControlPeer) -> BusObject {
        typealias A = BusObject.Argument
        func method(_ name: String, _ inputs: [A] = [], _ outputs: [A] = []) -> BusObject.Method {
            BusObject.Method(name, inputs: inputs, outputs: outputs) { arguments throws(BusMethodError) in
                try await peer.handle(name, arguments)
            }
        }
        let m = ControlInterface.Method.self
        let s = ControlInterface.Signal.self
        return BusObject(
            path: ControlInterface.objectPath,
            interface: ControlInterface.interface,
            methods: [
                method(m.getStatus, [], [A("status", "a{sv}")]),
                method(m.listChannels, [], [A("channels", "aa{sv}")]),
                method(m.listContacts, [A("limit", "u")], [A("contacts", "aa{sv}")]),
                method(m.accept, [A("channel", "s"), A("contact", "s")]),
                method(m.decline, [A("channel", "s"), A("contact", "s")]),
                method(m.renewToken, [A("channel", "s")]),
                method(m.reload, [], [A("status", "s")]),
                method(m.setDoNotDisturb, [A("on", "b")]),
                method(m.chatPrepare, [A("channel", "s")]),
                method(m.chatConnect, [A("channel", "s")]),
                method(m.chatViewPage, [A("channel", "s"), A("title", "s"), A("url", "s")]),
                method(m.chatListThreads, [A("channel", "s")], [A("threads", "aa{sv}")]),
                method(m.chatOpenThread, [A("channel", "s"), A("thread", "s")], [A("thread", "a{sv}")]),
                method(m.chatCreateThread, [A("channel", "s"), A("fields", "a{ss}")], [A("thread", "a{sv}")]),
                method(m.chatSendMessage, [A("channel", "s"), A("thread", "s"), A("text", "s")], [A("delivery", "a{ss}")]),
                method(m.chatEndConversation, [A("channel", "s"), A("thread", "s")]),
                method(m.channelRequest, [A("channel", "s"), A("command", "s"), A("arguments", "a{ss}")], [A("fields", "a{ss}")]),
            ],
            signals: [
                .init(s.channelEvent, [A("channel", "s"), A("event", "s"), A("details", "a{sv}")]),
                .init(s.channelStateChanged, [A("channel", "s"), A("state", "s"), A("detail", "s")]),
                .init(s.doNotDisturbChanged, [A("on", "b")]),
            ]
        )
    }
}

/// The records the peer answers with unless a test gives others.
enum Fixtures {
    static let status = StatusRecord(
        version: "attendantd 0.1.0",
        status: "2 channels listening",
        pid: 4242,
        doNotDisturb: false,
        notificationServer: true,
        channels: 2,
        listening: 2
    )
    static let channels = [
        ChannelRecord(name: "desk", plugin: "loopback", state: "listening", tokenExpiresIn: 3000, tokenLastRenewal: 1_763_800_000),
        ChannelRecord(name: "voice", plugin: "sip", state: "listening"),
    ]
    static let threads = [
        ChatThreadRecord(
            id: "t1",
            name: "Billing",
            state: "ready",
            lastMessages: [
                ChatMessageRecord(id: "m1", threadID: "t1", direction: "to-agent", sender: "You", text: "Hello", sentAt: 1_763_800_000),
                ChatMessageRecord(
                    id: "m2",
                    threadID: "t1",
                    direction: "from-agent",
                    sender: "Ann \"Q\" Lee",
                    senderAddress: "agent-7",
                    text: "Hi!\nHow can I help?",
                    sentAt: 1_763_800_060
                ),
            ]
        ),
        ChatThreadRecord(id: "t2", state: "closed"),
    ]
    /// The in-app action channel's replies (plugin karte-actions), by request.
    static let actionReplies: [String: [String: String]] = [
        "actions-view": ["event": "view", "pv_id": "pv-2", "original_pv_id": "pv-2"],
        "actions-track": ["event": "buy", "pv_id": "pv-2"],
        "actions-identify": ["event": "identify", "pv_id": "pv-2"],
        "actions-attribute": ["event": "attribute", "pv_id": "pv-2"],
        "actions-boundary": ["pv_id": "pv-3"],
        "actions-list": [
            "actions":
                #"[{"id":"a1","campaign_id":"c1","shorten_id":"s1","title":"Summer sale","body":"20 % off","links":[{"label":"Shop","url":"https://shop.example/sale","target":"_self"},{"label":"Later","url":"https://shop.example/later","target":"_blank"}]},{"id":"a2","campaign_id":"c2","shorten_id":"s2","title":"","body":"Hi","links":[]}]"#,
            "suppressed": "false", "visitor_id": "vis-1", "pv_id": "pv-2", "original_pv_id": "pv-1",
        ],
        "actions-dismiss": ["dismissed": "2"],
        "actions-suppress": ["suppressed": "true", "dismissed": "1"],
        "actions-unsuppress": ["suppressed": "false"],
        "actions-click": [
            "action": "a1", "url": "https://shop.example/sale", "target": "_self", "opened": "opened", "detail": "opened by xdg-open",
            "reset": "true",
        ],
        "actions-variables": [
            "variables":
                #"{"limit":{"value":3,"campaign_id":"c2","shorten_id":"s2"},"banner":{"value":"summer","campaign_id":"c1","shorten_id":"s1"}}"#,
            "fetched": "true",
        ],
    ]
    static let contacts = [
        ContactRecord(
            channel: "desk",
            id: "desk-2",
            kind: "call",
            from: "Ann \"Q\" Lee",
            fromAddress: "sip:ann@example.test",
            summary: "Incoming call",
            receivedAt: 1_763_800_100
        ),
        ContactRecord(
            channel: "desk",
            id: "desk-1",
            kind: "chat",
            from: "",
            fromAddress: "sip:bob@example.test",
            summary: "Line one\nline two",
            receivedAt: 1_763_800_000,
            endedAt: 1_763_800_060,
            outcome: "answered"
        ),
    ]
}
