import CXoneCore
import Foundation
import NIOHTTP1
import Testing

@testable import ContactCenterSim

// Secured sessions as the CXone mobile SDK 3.2.0 meets them (`TransactionTokenService`,
// `ConnectionService.connectToSocket`): the configuration lists `securedSessions`, the token server
// answers POST /oauth/token with a TransactionTokenDTO, and the socket is taken only with a valid
// `transactionToken`, whose customer needs no AuthorizeCustomer.
extension CXoneGatewayTests {
    static func transactionToken(_ simulator: ContactCenterSimulator, visitor: CXoneID, customer: CXoneID) async throws -> (Int, [String: Any]) {
        let url = "http://127.0.0.1:\(simulator.httpPort)/oauth/token?channelId=\(Self.channel)&brandId=\(Self.brand)&visitorId=\(visitor)"
        let body = #"{"type":"anonymous","customerIdentity":{"idOnExternalPlatform":"\#(customer)"}}"#
        let (status, answer) = try await Self.http(.POST, url, body: Array(body.utf8))
        return (status, (try? JSONSerialization.jsonObject(with: Data(answer))) as? [String: Any] ?? [:])
    }

    static func socketURI(_ simulator: ContactCenterSimulator, visitor: CXoneID, transactionToken: String?) -> String {
        let url = simulator.pluginEndpoints.webSocket(brandId: Self.brand, channelId: Self.channel, visitorId: visitor, sdkVersion: "3.2.0")
        let uri = String(url.dropFirst("ws://127.0.0.1:\(simulator.httpPort)".count))
        return uri + (transactionToken.map { "&transactionToken=\($0)" } ?? "")
    }

    @Test func theConfigurationListsSecuredSessionsEitherWay() async throws {
        for secured in [false, true] {
            var settings = CXoneGatewaySettings()
            settings.securedSessions = secured
            let simulator = try await Self.start(settings)
            let (_, body) = try await Self.http(.GET, "http://127.0.0.1:\(simulator.httpPort)/chat/1.0/brand/\(Self.brand)/channel/\(Self.channel)")
            let configuration = try CXoneChannelConfiguration.decode(body)
            #expect(configuration.settings.features["securedSessions"] == secured)
            await simulator.stop()
        }
    }

    @Test func aSecuredSocketNeedsAValidTransactionTokenWhichAuthorizesTheCustomer() async throws {
        var settings = CXoneGatewaySettings()
        settings.securedSessions = true
        let simulator = try await Self.start(settings)
        defer { Task { await simulator.stop() } }
        let visitor = CXoneID.random()
        let customer = CXoneID.random()

        // Without a token, or with one the server never issued, the upgrade is refused with 401.
        let (refused, _) = try await Self.http(
            .GET,
            "http://127.0.0.1:\(simulator.httpPort)" + Self.socketURI(simulator, visitor: visitor, transactionToken: nil)
        )
        #expect(refused == 401)
        await #expect(throws: (any Error).self) {
            _ = try await TestWebSocket.connect(
                port: simulator.httpPort,
                uri: Self.socketURI(simulator, visitor: visitor, transactionToken: "tt-forged")
            )
        }

        let (status, token) = try await Self.transactionToken(simulator, visitor: visitor, customer: customer)
        #expect(status == 200, "\(token)")
        let value = try #require(token["accessToken"] as? String)
        #expect(token["expiresIn"] as? Int == settings.accessTokenLifetime)
        #expect((token["customerIdentity"] as? [String: Any])?["idOnExternalPlatform"] as? String == customer.rawValue)
        #expect(simulator.cxone.transactionTokensIssued == 1)

        // With it: the socket opens and the customer is known without AuthorizeCustomer.
        let socket = try await TestWebSocket.connect(
            port: simulator.httpPort,
            uri: Self.socketURI(simulator, visitor: visitor, transactionToken: value)
        )
        let client = CXoneTestClient(socket: socket, customer: customer)
        try await poll { simulator.cxone.customerIDs.contains { SimCXoneID.same($0, customer.rawValue) } }
        let threadId = CXoneID.random()
        let message = CXoneWire.SendMessage(
            thread: .init(idOnExternalPlatform: threadId),
            messageContent: .text("Hi"),
            idOnExternalPlatform: .random()
        )
        let (created, _) = try await client.request(.sendMessage(message))
        guard case .event(_, _, .messageCreated) = created else {
            Issue.record("got \(created)")
            return
        }
        #expect(!simulator.cxone.receivedEventTypes.contains("AuthorizeCustomer"))

        // The token server wants the SDK's body and the channel's query.
        let url = "http://127.0.0.1:\(simulator.httpPort)/oauth/token?channelId=chat_other&brandId=\(Self.brand)&visitorId=\(visitor)"
        let (unknown, _) = try await Self.http(.POST, url, body: Array(#"{"type":"anonymous"}"#.utf8))
        #expect(unknown == 404)
        let own = "http://127.0.0.1:\(simulator.httpPort)/oauth/token?channelId=\(Self.channel)&brandId=\(Self.brand)&visitorId=\(visitor)"
        let (bad, _) = try await Self.http(.POST, own, body: Array("{}".utf8))
        #expect(bad == 400)
    }
}
