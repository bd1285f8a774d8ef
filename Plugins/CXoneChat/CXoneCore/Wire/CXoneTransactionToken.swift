package import FoundationEssentials

/// `POST {token}/oauth/token?channelId=&brandId=&visitorId=`'s answer, the SDK's `TransactionTokenDTO`
/// (secured sessions, SDK 3.2.0): `{"accessToken": the transaction token, "expiresIn", "customerIdentity"?,
/// "createdDate"?, "thirdParty"?: the OAuth access token}`.
package struct CXoneTransactionToken: CXoneRESTBody {
    package static var subject: String { "transaction token" }

    /// The token the socket URL carries (`transactionToken=`).
    package var accessToken: CXoneSecret
    /// Seconds from `createdDate` (or from receipt) until it expires; typically 600.
    package var expiresIn: Int
    package var customerIdentity: CXoneWire.CustomerIdentity?
    package var createdDate: Date?
    /// With OAuth: the access token messages carry.
    package var thirdParty: CXoneWire.AccessToken?

    package init(
        accessToken: CXoneSecret,
        expiresIn: Int,
        customerIdentity: CXoneWire.CustomerIdentity? = nil,
        createdDate: Date? = nil,
        thirdParty: CXoneWire.AccessToken? = nil
    ) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.customerIdentity = customerIdentity
        self.createdDate = createdDate
        self.thirdParty = thirdParty
    }
}

/// The body of the transaction token request, by how the channel knows the customer (the SDK's
/// `TransactionTokenService.buildTransactionTokenRequest`): anonymous `{"type": "anonymous",
/// "customerIdentity"?: {"idOnExternalPlatform"}}`, a secured cookie `{}`, OAuth `{"thirdParty":
/// {"grant_type": "authorization_code", "authorization_code", "code_verifier"}}`.
package struct CXoneTransactionTokenRequest: CXoneRESTBody {
    package static var subject: String { "transaction token request" }

    package var type: String?
    package var customerIdentity: Identity?
    package var thirdParty: ThirdParty?

    package struct Identity: Sendable, Hashable, Codable {
        package var idOnExternalPlatform: CXoneID
    }

    package struct ThirdParty: Sendable, Hashable, Codable {
        package var grantType: String
        package var authorizationCode: CXoneSecret
        package var codeVerifier: CXoneSecret

        enum CodingKeys: String, CodingKey {
            case grantType = "grant_type"
            case authorizationCode = "authorization_code"
            case codeVerifier = "code_verifier"
        }
    }

    /// `{"type": "anonymous", "customerIdentity"?: {"idOnExternalPlatform"}}`.
    package static func anonymous(customerID: CXoneID?) -> Self {
        Self(type: "anonymous", customerIdentity: customerID.map(Identity.init(idOnExternalPlatform:)))
    }

    /// `{}`: the token server knows the customer by its cookie.
    package static var securedCookie: Self { Self() }

    /// `{"thirdParty": {"grant_type": "authorization_code", "authorization_code", "code_verifier"}}`.
    package static func authorizationCode(_ code: CXoneSecret, verifier: CXoneSecret) -> Self {
        Self(thirdParty: ThirdParty(grantType: "authorization_code", authorizationCode: code, codeVerifier: verifier))
    }

    init(type: String? = nil, customerIdentity: Identity? = nil, thirdParty: ThirdParty? = nil) {
        self.type = type
        self.customerIdentity = customerIdentity
        self.thirdParty = thirdParty
    }
}
