/// One Bayeux client (a handshake's `clientId`) as the GMS server holds it.
struct BayeuxClient {
    let id: String
    /// The `gms_user` header its requests carry: v1 chats of that user send their events here.
    var gmsUser: String?
    /// Broadcast channels and patterns it subscribed to (`/service/**` subscriptions are not recorded).
    var subscriptions: Set<String> = []
    /// Events waiting for the next connect (long-polling) or a socket to push them on.
    var queue: [GMSJSON] = []
    /// The one outstanding `/meta/connect`.
    var held: BayeuxHeldConnect?
    /// Counts connects: a timer started for one connect does nothing once a later one has come.
    var epoch = 0
    /// The WebSocket its newest message came on, where its events are pushed.
    var socket: BayeuxSocket?
    /// CometD answers a client's first connect at once.
    var hasConnected = false

    func isSubscribed(to channel: String) -> Bool {
        self.subscriptions.contains { Self.pattern($0, matches: channel) }
    }

    /// Bayeux wildcards: `*` one segment, `**` any number of segments at the end.
    static func pattern(_ pattern: String, matches channel: String) -> Bool {
        let patternParts = pattern.split(separator: "/")
        let channelParts = channel.split(separator: "/")
        for (index, part) in patternParts.enumerated() {
            if part == "**" { return channelParts.count > index }
            guard index < channelParts.count else { return false }
            if part != "*" && part != channelParts[index] { return false }
        }
        return patternParts.count == channelParts.count
    }
}

/// A held `/meta/connect`: its reply is ready; what is missing is an event or the timeout.
struct BayeuxHeldConnect {
    let epoch: Int
    let reply: GMSJSON
    let waiter: BayeuxWaiter
}

/// Where a held connect's answer goes.
enum BayeuxWaiter: Sendable {
    /// A long-poll HTTP request: the route awaits the continuation; the link tells when the peer left.
    case longPoll(CheckedContinuation<BayeuxPollOutcome, Never>, HTTPConnectionLink?)
    case socket(BayeuxSocket)
}

/// How a long-poll request ends.
enum BayeuxPollOutcome: Sendable {
    /// These messages, as one JSON array.
    case answer([GMSJSON])
    /// No answer: the connection is closed (a fault, a restart).
    case drop
    /// These bytes as the body, whatever they are (the bad-input fault: not JSON, not Bayeux, too large).
    case raw([UInt8])
}
