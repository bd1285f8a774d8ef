import Foundation
import Synchronization

/// Secured sessions (CXone mobile SDK 3.2.0, the channel feature `securedSessions`): the client first asks
/// the token server for a transaction token (`POST {tokenURL}/oauth/token?channelId&brandId&visitorId`, the
/// SDK's `TransactionTokenService`), then opens the socket with `transactionToken` in its URL
/// (`ConnectionService.connectToSocket`); the customer is authorized by that handshake, so no
/// AuthorizeCustomer or ReconnectCustomer follows. The gateway refuses an upgrade without a valid,
/// unexpired token while the feature is on.
extension CXoneGateway {
    /// What the simulator's token server is: the host root, as the SDK derives `digital-oauth-…/` from the
    /// chat URL of a real region.
    static let transactionTokenPath = "/oauth/token"

    /// `POST /oauth/token`: a transaction token for the visitor. The body is the SDK's: `{"type":
    /// "anonymous", "customerIdentity"?: {"idOnExternalPlatform"}}`, or on an OAuth channel `{"thirdParty":
    /// {"grant_type": "authorization_code", "authorization_code", "code_verifier"}}`. The answer is the SDK's
    /// `TransactionTokenDTO`: `{"accessToken", "expiresIn", "customerIdentity", "thirdParty"?}`.
    func transactionTokenReply(_ request: HTTPRouteRequest) -> HTTPReply {
        if self.isDown { return Self.downReply }
        guard let brand = request.query["brandId"], let channel = request.query["channelId"], let visitor = request.query["visitorId"],
            !visitor.isEmpty
        else {
            return SimCXoneREST.serviceError("BadRequest", "the query needs channelId, brandId and visitorId").reply(status: 400)
        }
        guard Int(brand) == self.settings.brandId, channel == self.settings.channelId else {
            return SimCXoneREST.serviceError("ChannelNotFound", "no channel \(channel) in brand \(brand)").reply(status: 404)
        }
        guard let body = GMSJSON.parse(request.body), body.object != nil else {
            return SimCXoneREST.serviceError("BadRequest", "the body is not a JSON object").reply(status: 400)
        }
        var answer: GMSJSON = [:]
        let customer: SimCXoneCustomer
        if self.settings.isAuthorizationEnabled {
            let grant = body["thirdParty"]
            guard grant?["grant_type"]?.string == "authorization_code", let code = grant?["authorization_code"]?.string, !code.isEmpty,
                let verifier = grant?["code_verifier"]?.string, !verifier.isEmpty
            else {
                return SimCXoneREST.serviceError("Unauthorized", "OAuth is on: thirdParty needs the authorization code and code verifier")
                    .reply(status: 401)
            }
            customer = SimCXoneCustomer(id: SimCXoneID.random())
            answer["thirdParty"] = self.issueToken(for: customer)
        } else {
            guard body["type"]?.string == "anonymous" else {
                return SimCXoneREST.serviceError("BadRequest", "the channel takes anonymous customers: {\"type\": \"anonymous\"}").reply(status: 400)
            }
            customer = SimCXoneCustomer(id: body["customerIdentity"]?["idOnExternalPlatform"]?.string ?? SimCXoneID.random())
        }
        let token = "tt-" + SimCXoneID.random()
        let lifetime = self.settings.accessTokenLifetime
        self.state.withLock { state in
            state.transactionTokens[token] = (customer, self.now() + Double(lifetime))
            state.transactionTokensIssued += 1
        }
        answer["accessToken"] = .string(token)
        answer["expiresIn"] = .int(lifetime)
        answer["customerIdentity"] = customer.json
        return answer.reply()
    }

    /// The customer of a transaction token that has not expired.
    func transactionCustomer(_ token: String?) -> SimCXoneCustomer? {
        guard let token else { return nil }
        let now = self.now()
        return self.state.withLock { state in
            guard let (customer, expiresAt) = state.transactionTokens[token], now < expiresAt else { return nil }
            return customer
        }
    }

    /// Whether a WebSocket upgrade to the gateway is taken: not while down, and with secured sessions only
    /// with a valid transaction token.
    package func acceptsUpgrade(query: [String: String]) -> Bool {
        guard !self.isDown else { return false }
        return !self.settings.securedSessions || self.transactionCustomer(query["transactionToken"]) != nil
    }

    /// How many transaction tokens the token server issued.
    package var transactionTokensIssued: Int { self.state.withLock { $0.transactionTokensIssued } }
}
