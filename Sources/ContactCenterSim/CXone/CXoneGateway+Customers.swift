import Foundation
import Synchronization

/// Who a socket speaks for: AuthorizeCustomer (with or without OAuth), the access tokens it issues, and
/// what the gateway says to a customer who just arrived (welcome message, greeting).
extension CXoneGateway {
    func authorize(_ frame: SimCXoneClientFrame, code: String?, verifier: String?, on connection: CXoneGatewayConnection) {
        let sent = SimCXoneCustomer(frame.customer) ?? SimCXoneCustomer(id: frame.customerId)
        var authorized: GMSJSON = ["consumerIdentity": sent.json]
        var customer = sent.id
        if self.settings.isAuthorizationEnabled {
            guard let code, !code.isEmpty, let verifier, !verifier.isEmpty else {
                return self.fail(
                    frame,
                    "ConsumerAuthorizationFailed",
                    "OAuth is on: the authorization code and code verifier are required",
                    on: connection
                )
            }
            // OAuth: the gateway assigns the identity every later frame must carry.
            let identity = SimCXoneCustomer(id: SimCXoneID.random(), firstName: sent.firstName, lastName: sent.lastName)
            authorized = ["consumerIdentity": identity.json, "accessToken": self.issueToken(for: identity)]
            customer = identity.id
        }
        connection.customerId = customer
        self.answer(frame, "ConsumerAuthorized", authorized, on: connection)
        if let greeting = self.settings.greeting, !self.threads.contains(where: { SimCXoneID.same($0.customerId, customer) }) {
            let delay = self.settings.greetingDelay
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard let self, !self.threads.contains(where: { SimCXoneID.same($0.customerId, customer) }) else { return }
                guard let opened = try? self.agentOpensThread(customerID: customer, text: greeting) else { return }
                if let kind = self.settings.greetingOffer { _ = try? self.agentOffers(threadID: opened.threadId, kind: kind) }
            }
        }
        if let welcome = self.settings.welcomeMessage {
            var action: GMSJSON = [
                "proactiveAction": [
                    "action": [
                        "actionId": "welcome",
                        "actionName": "Welcome",
                        "actionType": "WelcomeMessage",
                        "data": ["content": ["bodyText": .string(welcome)], "handover": ["customFields": []]],
                    ]
                ]
            ]
            if let destination = frame.destinationId { action["destination"] = ["id": .string(destination)] }
            self.push("FireProactiveAction", action, to: connection)
        }
    }

    /// The access and transaction tokens issued so far (the secret scan of Benchmarks/fault_campaign.py).
    var issuedTokens: (access: [String], transaction: [String]) {
        self.state.withLock { ($0.issuedAccessTokens, Array($0.transactionTokens.keys)) }
    }

    /// A new access token for `identity`: `{"token", "expiresIn", "currentDate"}`.
    func issueToken(for identity: SimCXoneCustomer) -> GMSJSON {
        let token = "sim-" + SimCXoneID.random()
        self.state.withLock {
            $0.tokens[token] = identity
            $0.issuedAccessTokens.append(token)
        }
        return [
            "token": .string(token),
            "expiresIn": .int(self.settings.accessTokenLifetime),
            "currentDate": .string(SimCXoneTime.format(Date(timeIntervalSince1970: self.now()))),
        ]
    }
}
