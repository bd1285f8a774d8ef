import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

/// The CometD session ``GMSChatSession`` holds (its ``BayeuxTransport``): what `listen()`, a publish and a
/// goodbye ask of the kit's driver, and what the session reports becoming the chat's steps.
@Suite struct GMSChatSessionBayeuxTests {
    typealias Action = GMSChatSession.Action

    static let now = UnixTime(secondsSince1970: 1_800_000_000)

    static func session(apiVersion: Int = 2, transport: BayeuxConnectionType = .webSocket) -> GMSChatSession {
        let settings = GMSChatSession.Settings(
            apiVersion: apiVersion,
            service: "customer-support",
            serverDescription: "GMS at https://gms.test (chat API v\(apiVersion))",
            networkDelay: .seconds(4),
            makeThreadID: { "gms-thread" }
        )
        var configuration = BayeuxTransport.Configuration(url: "https://gms.test/genesys/cometd")
        configuration.machine.connectionType = transport
        return GMSChatSession(settings: settings, transport: configuration)
    }

    /// The Bayeux messages written on the link or POSTed, in order.
    static func sent(_ actions: [Action]) -> [BayeuxMessage] {
        actions.flatMap { action -> [BayeuxMessage] in
            switch action {
            case .writeLink(let bytes): (try? BayeuxBatch.decode(bytes)) ?? []
            case .work(.post(let post)): (try? BayeuxBatch.decode(post.request.body ?? [])) ?? []
            default: []
            }
        }
    }

    static func reply(to request: BayeuxMessage, _ change: (inout BayeuxMessage) -> Void = { _ in }) -> BayeuxMessage {
        var reply = BayeuxMessage(channel: request.channel, id: request.id, clientID: "c1")
        reply.successful = true
        change(&reply)
        return reply
    }

    /// A session whose `listen()` (request 1) connected over the WebSocket.
    static func connected(apiVersion: Int = 2) throws -> (GMSChatSession, [Action]) {
        var session = Self.session(apiVersion: apiVersion)
        let listen = session.listen(1, timeout: .seconds(30), now: Self.now)
        _ = session.linkOpened(now: Self.now)
        let handshake = try #require(Self.sent(listen).first)
        let handshook = session.linkMessage(.batch([Self.reply(to: handshake)]), now: Self.now)
        let connect = try #require(Self.sent(handshook).first { $0.channel == "/meta/connect" })
        let connected = session.linkMessage(.batch([Self.reply(to: connect)]), now: Self.now)
        return (session, handshook + connected)
    }

    @Test func listeningSubscribesTheChatsChannelStartsTheSessionAndWaitsForTheFirstConnect() throws {
        var session = Self.session()
        let listen = session.listen(1, timeout: .seconds(30), now: Self.now)
        #expect(listen.contains { if case .openLink(let request) = $0 { request.url == "wss://gms.test/genesys/cometd" } else { false } })
        #expect(Self.sent(listen).map(\.channel) == ["/meta/handshake"])
        #expect(listen.contains { if case .setTimer(.request(1), _) = $0 { true } else { false } })

        let (_, actions) = try Self.connected()
        #expect(Self.sent(actions).compactMap(\.subscription).flatMap { $0 } == ["/service/chatV2/customer-support"])
        #expect(actions.contains { if case .replied(1, .success) = $0 { true } else { false } }, "listen() hears the first connect")
        #expect(
            actions.contains {
                if case .log(.info, let line) = $0 {
                    line == "gms-chat: connected to GMS at https://gms.test (chat API v2) over websocket"
                } else {
                    false
                }
            }
        )

        var v1 = Self.session(apiVersion: 1)
        _ = v1.listen(1, timeout: .seconds(30), now: Self.now)
        #expect(v1.status(now: Self.now)["transport"] == "websocket")
        let (_, v1Actions) = try Self.connected(apiVersion: 1)
        #expect(Self.sent(v1Actions).compactMap(\.subscription).flatMap { $0 } == ["/_genesys"])
    }

    @Test func aPublishIsAnsweredWithGMSsAcknowledgementOrWhatFailed() throws {
        var (session, _) = try Self.connected()
        let publish = session.publish(.object(["operation": .string("sendMessage")]), what: "sendMessage to", 7, now: Self.now)
        let message = try #require(Self.sent(publish).first)
        #expect(message.channel == "/service/chatV2/customer-support" && message.clientID == "c1")
        let acknowledged = session.linkMessage(.batch([Self.reply(to: message)]), now: Self.now)
        #expect(acknowledged.contains { if case .replied(7, .success(.done)) = $0 { true } else { false } })

        let refused = session.publish(.object(["operation": .string("sendMessage")]), what: "sendMessage to", 8, now: Self.now)
        let second = try #require(Self.sent(refused).first)
        let answer = session.linkMessage(
            .batch([
                Self.reply(to: second) {
                    $0.successful = false
                    $0.error = "403::forbidden"
                }
            ]),
            now: Self.now
        )
        let expected = ChannelError(
            .transient,
            "gms-chat: sendMessage to GMS at https://gms.test (chat API v2) failed: the server refused the publish on /service/chatV2/customer-support: 403::forbidden"
        )
        #expect(answer.contains { if case .replied(8, .failure(let error)) = $0 { error == expected } else { false } }, "\(answer)")
    }

    @Test func goodbyeCarriesThePositionShownAndIsAnsweredOnceTheSessionEnded() throws {
        var (session, _) = try Self.connected()
        let disconnect = session.disconnect(3, now: Self.now)
        let goodbye = try #require(Self.sent(disconnect).first)
        #expect(goodbye.channel == "/meta/disconnect" && goodbye.ext?["transcriptPosition"] == .string("0"))
        #expect(!disconnect.contains { if case .replied = $0 { true } else { false } }, "not before GMS answered")
        let ended = session.linkMessage(.batch([Self.reply(to: goodbye)]), now: Self.now)
        #expect(ended.contains { if case .closeLink = $0 { true } else { false } })
        #expect(ended.contains { if case .replied(3, .success(.done)) = $0 { true } else { false } })

        // Without a session there is nothing to wait for.
        var idle = Self.session()
        #expect(idle.disconnect(4, now: Self.now).contains { if case .replied(4, .success(.done)) = $0 { true } else { false } })
    }

    @Test func aLostLinkIsAnInterruptionAndARefusedFirstUpgradeMeansLongPolling() throws {
        var (session, _) = try Self.connected()
        let lost = session.linkClosed("restarting", now: Self.now)
        #expect(
            lost.contains {
                if case .log(.notice, let line) = $0 {
                    line
                        == "gms-chat: the connection to GMS at https://gms.test (chat API v2) was interrupted: the WebSocket closed: restarting; reconnecting"
                } else {
                    false
                }
            },
            "\(lost)"
        )
        #expect(session.statusFields()["connected"] == "no")

        var refused = Self.session()
        _ = refused.listen(1, timeout: .seconds(30), now: Self.now)
        let fallback = refused.linkClosed("HTTP 404", now: Self.now)
        #expect(
            fallback.contains { if case .log(.notice, let line) = $0 { line.hasSuffix("did not open: HTTP 404; using long-polling") } else { false } }
        )
        #expect(
            fallback.contains { if case .log(.notice, let line) = $0 { line.hasSuffix("is reached over long-polling from now on") } else { false } }
        )
        #expect(refused.status(now: Self.now)["transport"] == "long-polling")
    }
}
