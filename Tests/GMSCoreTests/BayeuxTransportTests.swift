import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

typealias Output = BayeuxTransport.Output

extension [Output] {
    var posts: [BayeuxPost] {
        self.compactMap { if case .post(let post) = $0 { post } else { nil } }
    }

    /// The messages of every POST and link write, in order.
    var messages: [BayeuxMessage] {
        self.flatMap { output -> [BayeuxMessage] in
            switch output {
            case .post(let post): (try? BayeuxBatch.decode(post.request.body ?? [])) ?? []
            case .writeLink(let bytes): (try? BayeuxBatch.decode(bytes)) ?? []
            default: []
            }
        }
    }

    var events: [BayeuxTransport.Event] {
        self.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    var logs: [String] {
        self.compactMap { if case .log(let level, let message) = $0 { "\(level) \(message)" } else { nil } }
    }

    /// The link's actions and the connect's cancellation, in a few words.
    var linkWords: [String] {
        self.compactMap { output -> String? in
            switch output {
            case .openLink(let request): "open \(request.url)"
            case .writeLink(let bytes): "write \(((try? BayeuxBatch.decode(bytes)) ?? []).map(\.channel).joined(separator: ","))"
            case .closeLink: "close"
            case .cancelConnectPost: "cancel connect post"
            default: nil
            }
        }
    }

    func timer(_ kind: BayeuxClientStateMachine.TimerKind) -> TimerID<BayeuxClientStateMachine.TimerKind>? {
        self.compactMap { if case .setTimer(let id, _) = $0, id.kind == kind { id } else { nil } }.last
    }
}

/// A transport on a clock of its own, with the server's answers built as servers send them.
struct TransportRig {
    var transport: BayeuxTransport
    var now: Duration = .seconds(100)

    init(_ type: BayeuxConnectionType) {
        var configuration = BayeuxTransport.Configuration(url: "https://gms.test/genesys/cometd")
        configuration.headers = [NetworkHeader("gms_user", "u-1")]
        configuration.machine.connectionType = type
        self.transport = BayeuxTransport(configuration: configuration, random: TopRandom())
    }

    static func reply(to request: BayeuxMessage, _ change: (inout BayeuxMessage) -> Void = { _ in }) -> BayeuxMessage {
        var reply = BayeuxMessage(channel: request.channel, id: request.id, clientID: request.clientID ?? "c1")
        reply.successful = true
        change(&reply)
        return reply
    }

    /// The server's answer to the handshake among `outputs`.
    static func handshook(_ outputs: [Output]) -> BayeuxMessage {
        let handshake = outputs.messages.first { $0.channel == "/meta/handshake" }!
        return Self.reply(to: handshake) {
            $0.advice = BayeuxAdvice(reconnect: .retry, interval: .zero, timeout: .seconds(30))
            $0.supportedConnectionTypes = ["long-polling", "websocket"]
        }
    }
}

/// ``BayeuxTransport``, the Bayeux client's transports as the steps of the session that holds it: which
/// POSTs and link actions each step asks of the kit's driver, and what a link or a POST brought does.
@Suite struct BayeuxTransportTests {
    @Test func longPollingPostsEachBatchAndHoldsTheConnectOnATaggedRequestOfItsOwn() throws {
        var rig = TransportRig(.longPolling)
        let start = rig.transport.start(now: rig.now)
        let handshake = try #require(start.posts.first)
        #expect(start.posts.count == 1 && handshake.lane == .control && handshake.tag == BayeuxPost.controlTag)
        #expect(handshake.request.method == "POST" && handshake.request.url == "https://gms.test/genesys/cometd" && handshake.request.usesCookies)
        #expect(handshake.request.headers.contains(NetworkHeader("gms_user", "u-1")))
        #expect(handshake.request.timeout == .seconds(10))

        let session = rig.transport.posted(handshake, .batch([TransportRig.handshook(start)]), now: rig.now)
        #expect(session.events.contains { if case .handshook(let id) = $0 { id == "c1" } else { false } })
        let connect = try #require(session.posts.first { $0.lane == .connect })
        #expect(connect.tag == BayeuxPost.connectTag && connect.request.timeout == .seconds(40), "held for advice.timeout plus the network's delay")
        #expect(rig.transport.wants(connect) && rig.transport.wants(handshake))

        // The connect's deadline passes: the held request is cancelled, and one that had not started is not sent.
        let deadline = try #require(session.timer(.connectDeadline))
        let abandoned = rig.transport.timerFired(deadline, now: rig.now + .seconds(41))
        #expect(abandoned.linkWords == ["cancel connect post"])
        #expect(!rig.transport.wants(connect))
        #expect(abandoned.events.contains { if case .interrupted = $0 { true } else { false } })
        #expect(rig.transport.status(now: rig.now).fields["transport"] == "long-polling")
    }

    @Test func aLongPollAnsweredWithoutItsConnectsReplyEndsThatConnect() throws {
        var rig = TransportRig(.longPolling)
        let start = rig.transport.start(now: rig.now)
        let session = rig.transport.posted(start.posts[0], .batch([TransportRig.handshook(start)]), now: rig.now)
        let connect = try #require(session.posts.first { $0.lane == .connect })
        // The first connect's answer, then one held and answered with an event only.
        let connectMessage = try #require(session.messages.first { $0.channel == "/meta/connect" })
        let first = rig.transport.posted(connect, .batch([TransportRig.reply(to: connectMessage)]), now: rig.now)
        #expect(first.events.contains { if case .connected = $0 { true } else { false } })
        let held = try #require(first.posts.first { $0.lane == .connect })
        let event = BayeuxMessage(channel: "/chat/demo", data: .object(["text": .string("hi")]))
        let answered = rig.transport.posted(held, .batch([event]), now: rig.now)
        #expect(answered.events.contains { if case .delivered(let message) = $0 { message.channel == "/chat/demo" } else { false } })
        #expect(
            answered.events.contains { if case .interrupted(let failure) = $0 { failure.description.contains("without its reply") } else { false } }
        )
        #expect(rig.transport.status(now: rig.now).batchesReceived == 3)
    }

    @Test func whatIsNotABatchIsNamedInTheLogAndFailsTheRequestThatBroughtIt() throws {
        var rig = TransportRig(.longPolling)
        let configuration = rig.transport.configuration
        let answer = configuration.read(Array("<html>".utf8))
        guard case .notBayeux(let warning, _) = answer else {
            Issue.record("read as a batch: \(answer)")
            return
        }
        #expect(warning.hasPrefix("bayeux: ignored a batch from https://gms.test/genesys/cometd (6 bytes): "), "\(warning)")

        let start = rig.transport.start(now: rig.now)
        let rejected = rig.transport.posted(start.posts[0], answer, now: rig.now)
        #expect(rejected.logs.first == "warning \(warning)")
        #expect(
            rejected.events.contains { if case .interrupted(let failure) = $0 { failure.description.contains("not a Bayeux batch") } else { false } }
        )
        #expect(rig.transport.status(now: rig.now).fields["batches-rejected"] == "1")

        // An HTTP error is a failed request; an answer over the limit is named in the log as well.
        guard case .failed(let failure, nil) = configuration.read(.success(NetworkResponse(status: 503, reason: "Service Unavailable"))) else {
            Issue.record("a 503 is not a failure")
            return
        }
        #expect(failure.description == "the server answered HTTP 503 Service Unavailable")
        guard case .failed(_, let tooLarge?) = configuration.read(.failure(NetworkError(.tooLarge, "the answer has more than 4194304 bytes"))) else {
            Issue.record("an answer over the limit is not named")
            return
        }
        #expect(tooLarge == "bayeux: ignored an answer from https://gms.test/genesys/cometd: the answer has more than 4194304 bytes")
    }

    @Test func aWebSocketOpensWithTheFirstBatchAndTheConnectIsAbandonedByClosingIt() throws {
        var rig = TransportRig(.webSocket)
        let start = rig.transport.start(now: rig.now)
        #expect(start.linkWords == ["open wss://gms.test/genesys/cometd", "write /meta/handshake"])
        #expect(start.posts.isEmpty)
        #expect(rig.transport.linkOpened().isEmpty)
        let session = rig.transport.received(.batch([TransportRig.handshook(start)]), now: rig.now)
        #expect(session.linkWords == ["write /meta/connect"], "the link is open: no second one")

        let deadline = try #require(session.timer(.connectDeadline))
        let abandoned = rig.transport.timerFired(deadline, now: rig.now + .seconds(5))
        #expect(abandoned.linkWords == ["cancel connect post", "close"])
        // The connect is tried again on a new link (no closed event comes from the one let go of).
        let retry = try #require(abandoned.timer(.connect))
        let again = rig.transport.timerFired(retry, now: rig.now + .seconds(5))
        #expect(again.linkWords == ["open wss://gms.test/genesys/cometd", "write /meta/connect"])
    }

    @Test func aLinkThatClosesFailsWhatWasOutstandingOnIt() throws {
        var rig = TransportRig(.webSocket)
        let start = rig.transport.start(now: rig.now)
        _ = rig.transport.linkOpened()
        _ = rig.transport.received(.batch([TransportRig.handshook(start)]), now: rig.now)
        let closed = rig.transport.linkClosed("restarting", now: rig.now)
        #expect(
            closed.events.contains {
                if case .interrupted(let failure) = $0 { failure.description == "the WebSocket closed: restarting" } else { false }
            }
        )
        #expect(!closed.linkWords.contains("close"), "the driver let go of it already")
        #expect(rig.transport.status(now: rig.now).machine.connectionType == .webSocket)
    }

    @Test func aFirstUpgradeThatFailsMeansLongPollingForGood() throws {
        var rig = TransportRig(.webSocket)
        let start = rig.transport.start(now: rig.now)
        #expect(start.linkWords.first == "open wss://gms.test/genesys/cometd")
        let refused = rig.transport.linkClosed("HTTP 404", now: rig.now)
        #expect(refused.logs == ["notice bayeux: the WebSocket to wss://gms.test/genesys/cometd did not open: HTTP 404; using long-polling"])
        #expect(refused.events.contains { if case .transportChanged(.longPolling) = $0 { true } else { false } })
        #expect(rig.transport.status(now: rig.now).machine.connectionType == .longPolling)
        // The handshake is tried again at once, as a POST that offers long-polling only.
        let retry = try #require(refused.timer(.handshake))
        let again = rig.transport.timerFired(retry, now: rig.now)
        #expect(again.posts.count == 1 && again.linkWords.isEmpty)
        #expect(again.messages.first?.supportedConnectionTypes == ["long-polling"])
    }

    @Test func anUpgradeThatFailsAfterOneWorkedIsANetworkFailureLikeAny() throws {
        var rig = TransportRig(.webSocket)
        let start = rig.transport.start(now: rig.now)
        _ = rig.transport.linkOpened()
        _ = rig.transport.received(.batch([TransportRig.handshook(start)]), now: rig.now)
        let lost = rig.transport.linkClosed("reset", now: rig.now)
        let reopened = rig.transport.timerFired(try #require(lost.timer(.connect)), now: rig.now)
        #expect(reopened.linkWords == ["open wss://gms.test/genesys/cometd", "write /meta/connect"])
        let failed = rig.transport.linkClosed("connection refused", now: rig.now)
        #expect(failed.logs.isEmpty)
        #expect(!failed.events.contains { if case .transportChanged = $0 { true } else { false } })
        #expect(rig.transport.status(now: rig.now).machine.connectionType == .webSocket)
    }

    @Test func aStoppedSessionLetsGoOfItsLink() throws {
        var rig = TransportRig(.webSocket)
        let start = rig.transport.start(now: rig.now)
        _ = rig.transport.linkOpened()
        _ = rig.transport.received(.batch([TransportRig.handshook(start)]), now: rig.now)
        let disconnect = rig.transport.disconnect(ext: ["transcriptPosition": .string("4")], now: rig.now)
        let goodbye = try #require(disconnect.messages.first { $0.channel == "/meta/disconnect" })
        #expect(goodbye.ext?["transcriptPosition"] == .string("4"))
        let stopped = rig.transport.received(.batch([TransportRig.reply(to: goodbye)]), now: rig.now)
        #expect(stopped.linkWords == ["close"])
        #expect(stopped.events.contains { if case .stopped(nil) = $0 { true } else { false } })
    }
}
