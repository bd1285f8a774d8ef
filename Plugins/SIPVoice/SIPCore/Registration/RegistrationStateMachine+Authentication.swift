extension RegistrationStateMachine {
    /// Answers a 401 or 407: picks the challenge, refuses to answer the same one twice, caches it, and
    /// sends the request again with credentials.
    mutating func answerChallenge(_ response: SIPResponse) -> [Action] {
        let purpose = self.purpose
        if purpose == .register, self.pending == .unregister { return self.finishUnregistering() }
        let proxy = response.statusCode == 407
        let header: SIPHeaderName = proxy ? .proxyAuthorization : .authorization
        let offered: [SIPAuthChallenge]
        do {
            offered = proxy ? try response.headers.proxyAuthenticate : try response.headers.wwwAuthenticate
        } catch {
            return self.failOrFinish(
                RegistrationError(
                    .transient,
                    "the registrar's \(response.statusCode) carries a malformed challenge: \(error)",
                    statusCode: response.statusCode
                )
            )
        }
        let schemes = offered.map(\.scheme).joined(separator: ", ")
        guard let challenge = self.chooseChallenge(offered) else {
            let message: String
            switch self.credentials {
            case .none: message = "the registrar asks for credentials (\(schemes.isEmpty ? "no challenge" : schemes)) and the channel has none"
            case .bearer:
                message = "the registrar asks for \(schemes.isEmpty ? "credentials without a challenge" : schemes) and the channel has a bearer token"
            case .digest:
                message =
                    "the registrar asks for \(schemes.isEmpty ? "credentials without a challenge" : schemes), none of which this channel can answer with a password (Digest MD5 or SHA-256)"
            }
            return self.failOrFinish(RegistrationError(.configuration, message, statusCode: response.statusCode))
        }
        let key = challenge.isBearer ? "bearer" : "digest:\(challenge.realm ?? ""):\(challenge.nonce ?? "")"
        let staleRetry = challenge.isStale && !self.answered.contains(key)
        if (self.answeredFresh.contains(header) && !staleRetry) || self.answered.contains(key) || self.answered.count >= 8 {
            var message = "the registrar refused the \(self.credentials) (\(response.statusCode) again after answering its challenge)"
            if let error = challenge.error { message += ": \(error)" }
            if let description = self.shown(challenge.errorDescription) {
                message += challenge.error == nil ? ": \(description)" : " (\(description))"
            }
            return self.failOrFinish(RegistrationError(.authentication, message, statusCode: response.statusCode))
        }
        self.answered.insert(key)
        self.answeredFresh.insert(header)
        self.challenges[header] = challenge
        if let nonce = challenge.nonce, self.nonceCounts[nonce] == nil { self.nonceCounts[nonce] = 0 }
        return self.sendRegister(purpose: purpose)
    }

    /// The server's `error_description`, fit to show: printable characters only, at most 200 of them, and
    /// never the secret itself (a server might echo the token it refuses).
    func shown(_ description: String?) -> String? {
        guard var text = description.map({ String($0.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init)) }) else {
            return nil
        }
        switch self.credentials {
        case .bearer(let secret) where !secret.isEmpty: text = text.replacing(secret, with: "[the token]")
        case .digest(let secret) where !secret.password.isEmpty: text = text.replacing(secret.password, with: "[the password]")
        default: break
        }
        if text.count > 200 { text = String(text.prefix(200)) + "…" }
        return text.isEmpty ? nil : text
    }

    /// The topmost challenge the credentials can answer (RFC 8760 section 2.4).
    func chooseChallenge(_ offered: [SIPAuthChallenge]) -> SIPAuthChallenge? {
        switch self.credentials {
        case .none:
            return nil
        case .bearer:
            return offered.first(where: \.isBearer)
        case .digest:
            return offered.first { challenge in
                guard challenge.isDigest, DigestAlgorithm(parameter: challenge.algorithm) != nil,
                    challenge.realm != nil, challenge.nonce != nil
                else { return false }
                let qop = challenge.qopOptions
                return qop.isEmpty || qop.contains("auth") || qop.contains("auth-int")
            }
        }
    }

    /// Credentials answering every cached challenge, for the next request (Digest nonce counts go up).
    mutating func authorizations() -> Result<[(SIPHeaderName, SIPCredentials)], RegistrationError> {
        var credentials: [(SIPHeaderName, SIPCredentials)] = []
        for header in [SIPHeaderName.authorization, .proxyAuthorization] {
            guard let challenge = self.challenges[header] else { continue }
            switch self.credentials {
            case .bearer(let token) where challenge.isBearer:
                do {
                    credentials.append((header, try SIPCredentials.bearer(validating: token)))
                } catch {
                    return .failure(RegistrationError(.authentication, "the bearer token cannot be sent: \(error)"))
                }
            case .digest(let secret) where challenge.isDigest:
                let nonce = challenge.nonce ?? ""
                let count = self.nonceCounts[nonce, default: 0] + 1
                self.nonceCounts[nonce] = count
                let request = self.configuration.builder
                do {
                    credentials.append(
                        (
                            header,
                            try DigestAuthentication.credentials(
                                answering: challenge,
                                method: .register,
                                uri: request.registrar,
                                credentials: secret,
                                clientNonce: self.identifiers.clientNonce(),
                                nonceCount: count,
                                hashing: self.hashing
                            )
                        )
                    )
                } catch {
                    return .failure(RegistrationError(.configuration, "cannot answer the registrar's challenge: \(error)"))
                }
            default:
                continue
            }
        }
        return .success(credentials)
    }
}
