import AsyncHTTPClient
import ContactCenterSim
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite struct TokenTests {
    /// Splits a JWT and checks its HS256 signature with Crypto directly, not with the simulator's code.
    static func decode(_ token: String, key: [UInt8]) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(!token.contains("="), "base64url without padding")
        func bytes(_ text: String) throws -> Data {
            var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            return try #require(Data(base64Encoded: text))
        }
        let signature = try bytes(parts[2])
        let valid = HMAC<SHA256>.isValidAuthenticationCode(
            signature,
            authenticating: Data("\(parts[0]).\(parts[1])".utf8),
            using: SymmetricKey(data: key)
        )
        #expect(valid, "HS256 signature checks out with the signing key")
        let header = try #require(try JSONSerialization.jsonObject(with: bytes(parts[0])) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: bytes(parts[1])) as? [String: Any])
        return (header, claims)
    }

    @Test func issuedTokenIsHS256WithTheClaims() async throws {
        let clock = ManualWallClock()
        let key = Array("a very secret signing key, 32 b!".utf8)
        let simulator = try await ContactCenterSimulator.start(
            SimulatorConfiguration(signingKey: key, tokenLifetime: .seconds(900), accountSID: "ACtest", now: { clock.now })
        )
        defer { Task { await simulator.stop() } }
        let token = simulator.issueToken(identity: "alice")
        let (header, claims) = try Self.decode(token, key: key)
        #expect(header["alg"] as? String == "HS256")
        #expect(header["typ"] as? String == "JWT")
        #expect(claims["iss"] as? String == "ACtest")
        #expect(claims["sub"] as? String == "ACtest")
        #expect((claims["jti"] as? String)?.isEmpty == false)
        #expect(claims["iat"] as? Int == Int(clock.now))
        #expect(claims["nbf"] as? Int == Int(clock.now))
        #expect(claims["exp"] as? Int == Int(clock.now) + 900)
        let grants = try #require(claims["grants"] as? [String: Any])
        #expect(grants["identity"] as? String == "alice")
        let voice = try #require(grants["voice"] as? [String: Any])
        let incoming = try #require(voice["incoming"] as? [String: Any])
        #expect(incoming["allow"] as? Bool == true)
        #expect(simulator.tokensIssued == 1)

        let wrongKey = Array("another key entirely, not ours!!".utf8)
        let parts = token.split(separator: ".").map(String.init)
        let forged = HMAC<SHA256>.isValidAuthenticationCode(
            Data(HMAC<SHA256>.authenticationCode(for: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: wrongKey))),
            authenticating: Data("\(parts[0]).\(parts[1])".utf8),
            using: SymmetricKey(data: key)
        )
        #expect(!forged)
    }

    @Test func endpointIssuesRefusesAndValidates() async throws {
        let key = Array("endpoint key endpoint key endpoi".utf8)
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration(signingKey: key, tokenLifetime: .seconds(120)))
        defer { Task { await simulator.stop() } }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }

        for method in [HTTPMethod.GET, .POST] {
            var request = HTTPClientRequest(url: simulator.tokenURL + "bob")
            request.method = method
            let response = try await client.execute(request, timeout: .seconds(60))
            #expect(response.status.code == 200)
            let body = try await response.body.collect(upTo: 1 << 16)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            #expect(object["identity"] as? String == "bob")
            #expect(object["expires_in"] as? Int == 120)
            let token = try #require(object["token"] as? String)
            let (_, claims) = try Self.decode(token, key: key)
            #expect((claims["grants"] as? [String: Any])?["identity"] as? String == "bob")
        }
        #expect(simulator.tokensIssued == 2)

        simulator.setRefusesRenewals(true)
        let refused = try await client.execute(HTTPClientRequest(url: simulator.tokenURL + "bob"), timeout: .seconds(60))
        #expect(refused.status.code == 403)
        let refusal = String(buffer: try await refused.body.collect(upTo: 1 << 16))
        #expect(refusal == #"{"error":"renewals refused by the simulator"}"#)
        #expect(simulator.tokensIssued == 2)

        simulator.setRefusesRenewals(false)
        let missing = try await client.execute(HTTPClientRequest(url: simulator.tokenURL), timeout: .seconds(60))
        #expect(missing.status.code == 400)
        let error = String(buffer: try await missing.body.collect(upTo: 1 << 16))
        #expect(error.contains("\"error\""))
    }
}
