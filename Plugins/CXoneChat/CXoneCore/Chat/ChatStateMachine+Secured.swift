import AttendantPluginAPI

// Secured sessions, as the CXone mobile SDK 3.2.0 connects a channel whose feature `securedSessions` is on
// (nice-cxone-mobile-sdk-ios `Services/ConnectionService.swift`: `connectToSocket`,
// `getAndStoreTransactionTokenIfNeeded`, `checkForAuthorization`; `Services/TransactionTokenService.swift`):
// before the socket opens, the token server gives a transaction token for the visitor, which goes in the
// socket URL and authorizes the customer, so no AuthorizeCustomer or ReconnectCustomer follows. The token
// is kept for later sockets until it is about to expire (`Expirable`: 30 s before), then a new one is asked.
extension ChatStateMachine {
    /// What the token server is asked (the SDK's `buildTransactionTokenRequest`): for the brand, channel
    /// and visitor, how the customer is known.
    package struct TransactionTokenRequest: Sendable, Hashable {
        package var brandID: Int
        package var channelID: String
        package var visitorID: String
        package var grant: Grant

        package init(brandID: Int, channelID: String, visitorID: String, grant: Grant) {
            self.brandID = brandID
            self.channelID = channelID
            self.visitorID = visitorID
            self.grant = grant
        }

        /// The SDK's `AuthenticationType`: `isSecuredCookieEnabled` (the token server's cookie), else
        /// `isAuthorizationEnabled` (the OAuth code and verifier), else anonymous with the customer's id.
        package enum Grant: Sendable, Hashable {
            case anonymous(customerID: String?)
            case securedCookie
            case authorizationCode(code: String, verifier: String)
        }
    }

    /// The token server's answer (the SDK's `TransactionTokenDTO`).
    package struct TransactionToken: Sendable, Hashable {
        package var value: String
        /// `expiresIn`.
        package var lifetime: Duration
        /// `customerIdentity.idOnExternalPlatform`: who the token authorizes.
        package var customerID: String?
        /// `thirdParty` (OAuth): the access token messages carry.
        package var accessToken: String?

        package init(value: String, lifetime: Duration, customerID: String? = nil, accessToken: String? = nil) {
            self.value = value
            self.lifetime = lifetime
            self.customerID = customerID
            self.accessToken = accessToken
        }
    }

    /// The SDK's safety margin before a transaction token's end (`Expirable.isExpired`).
    static let transactionTokenMargin = Duration.seconds(30)

    /// Whether the channel's feature `securedSessions` is on.
    var usesSecuredSessions: Bool { self.channelConfiguration?.securedSessions == true }

    /// The access token messages carry: with secured sessions the transaction token's OAuth token, else
    /// the stored one (`ChatThreadService`: `token:` of SendMessage).
    package var messageToken: String? {
        self.usesSecuredSessions ? self.transactionToken?.accessToken : self.persisted.accessToken?.value
    }

    /// Asks the token server for a transaction token before the socket opens. With OAuth it needs the
    /// authorization code: without one the connection fails, as the SDK's `transactionTokenExpired` asks for
    /// a new OAuth flow.
    mutating func fetchTransactionToken(recovery: ChatConnection.Recovery?) -> [Action] {
        guard let brandID = self.brandID, let channelID = self.channelID, let visitorID = self.persisted.visitorID,
            let configuration = self.channelConfiguration
        else { return [] }
        let grant: TransactionTokenRequest.Grant
        if configuration.isSecuredCookieEnabled {
            grant = .securedCookie
        } else if configuration.isAuthorizationEnabled {
            guard let code = self.configuration.authorizationCode, let verifier = self.configuration.codeVerifier else {
                let error = ChatError(
                    .connection,
                    "the channel has secured sessions with OAuth: the token server needs an authorization code and code verifier; sign in again"
                )
                return self.enter(.authenticating(recovery)) + self.failConnection(error)
            }
            grant = .authorizationCode(code: code, verifier: verifier)
        } else {
            grant = .anonymous(customerID: self.persisted.customerID)
        }
        let request = TransactionTokenRequest(brandID: brandID, channelID: channelID, visitorID: visitorID, grant: grant)
        return self.enter(.authenticating(recovery)) + [.fetchTransactionToken(request)]
    }

    /// The token came: kept until shortly before it expires, the customer it names stored, and the socket
    /// opened with it.
    mutating func transactionTokenFetched(_ token: TransactionToken) -> [Action] {
        guard case .authenticating(let recovery) = self.connection else { return [] }
        self.transactionToken = token
        var actions = self.arm(.transactionTokenExpiry, after: max(token.lifetime - Self.transactionTokenMargin, .zero))
        if let customerID = token.customerID, customerID != self.persisted.customerID {
            self.persisted.customerID = customerID
            actions.append(.store(.customerID(customerID)))
        }
        return actions + self.openSocket(recovery: recovery)
    }

    /// No token: the first connect fails with the token server's error; a reconnect tries again after
    /// the backoff, as for a socket that did not open.
    mutating func transactionTokenFailed(_ error: ChatError) -> [Action] {
        guard case .authenticating(let recovery) = self.connection else { return [] }
        guard recovery != nil else { return self.failConnection(error) }
        return self.connectionLost(reason: error.message)
    }
}
