import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GenesysCore

/// A Genesys Cloud web messaging conversation. GenesysCore's pure ``GenesysChatSession`` decides
/// everything (the socket's session machine, the messages shown once, the callers waiting); the kit's
/// ``SessionDriver`` runs it (the lock, the timers, the WebSocket as its link, whose frames are decoded
/// outside the lock, the ordered worker for the store and the host's events). This class reads the store
/// and the session token once, and fetches the deployment's configuration on the host's network.
final class GenesysMessagingChannel: Channel {
    typealias Session = GenesysChatSession

    let configuration: GenesysMessagingConfiguration
    let host: any ChannelHost
    let driver: SessionDriver<Session>

    init(configuration: GenesysMessagingConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.driver = SessionDriver(host: host, prefix: Session.prefix)
    }

    var prefix: String { Session.prefix }

    func run() async {
        await self.driver.run({ work in self.carryOut(work) }, link: { Session.step(for: $0, now: self.host.now()) })
    }

    /// The session's work: the deployment's config.json, read outside the lock.
    func carryOut(_ work: Session.Work) {
        switch work {
        case .fetchDeployment:
            let request = self.configuration.sessionSettings.deploymentRequest
            let server = self.configuration.serverDescription
            let prefix = self.prefix
            self.driver.send(request) { outcome in
                let read = Self.deployment(outcome, server: server, prefix: prefix)
                let now = self.host.now()
                return { $0.deploymentFetched(read, now: now) }
            }
        case .exchangeCode:
            self.driver.concurrently {
                let outcome = await self.exchangeCode()
                let now = self.host.now()
                return { $0.authAnswered(outcome, refreshed: false, now: now) }
            }
        case .refreshJWT(let refreshToken):
            let request = self.configuration.post(
                self.configuration.endpoints.jwtRefresh,
                GenesysAuthBodies.refresh(refreshToken: refreshToken)
            )
            self.driver.send(request) { outcome in
                let read = Self.authJwt(outcome, what: "the JWT's refresh")
                let now = self.host.now()
                return { $0.authAnswered(read, refreshed: true, now: now) }
            }
        case .upload(let request, let attachmentId):
            self.driver.send(request) { outcome in
                let failure: String? =
                    switch outcome {
                    case .success(let response) where (200..<300).contains(response.status): nil
                    case .success(let response): "HTTP \(response.status)"
                    case .failure(let error): error.message
                    }
                return { $0.uploaded(attachmentId, failure: failure) }
            }
        case .fetchHistory(let request, let page):
            self.driver.send(request) { outcome in
                let read = Self.historyPage(outcome)
                let now = self.host.now()
                return { $0.historyFetched(page: page, read, now: now) }
            }
        }
    }

    /// config.json as the deployment, or why not: a 404 (no such deployment) is the configuration's fault.
    static func deployment(
        _ outcome: Result<NetworkResponse, NetworkError>,
        server: String,
        prefix: String
    ) -> Result<GenesysDeploymentConfig, ChannelError> {
        switch outcome {
        case .failure(let error):
            return .failure(ChannelError(.transient, "\(prefix): could not fetch the deployment's configuration from \(server): \(error)"))
        case .success(let response) where response.status == 404 || response.status == 403:
            return .failure(
                ChannelError(.configuration, "\(prefix): \(server) knows no such deployment (HTTP \(response.status)); check deployment-id")
            )
        case .success(let response) where response.status != 200:
            return .failure(ChannelError(.transient, "\(prefix): the deployment's configuration from \(server) failed: HTTP \(response.status)"))
        case .success(let response):
            do throws(GenesysWireError) {
                return .success(try GenesysDeploymentConfig(decoding: response.body))
            } catch {
                return .failure(ChannelError(.server, "\(prefix): the deployment's configuration from \(server) is not one: \(error)"))
            }
        }
    }
}

extension GenesysMessagingChannel {
    /// A history page as the session reads it: a 401 or 403 is the JWT's (asked for again next time).
    static func historyPage(_ outcome: Result<NetworkResponse, NetworkError>) -> Result<GenesysHistoryPage, ChannelError> {
        switch outcome {
        case .failure(let error):
            return .failure(ChannelError(.transient, "the history API failed: \(error)"))
        case .success(let response) where response.status == 401 || response.status == 403:
            return .failure(ChannelError(.authentication, "the history API refused the JWT: HTTP \(response.status)"))
        case .success(let response) where response.status != 200:
            return .failure(ChannelError(.transient, "the history API answered HTTP \(response.status)"))
        case .success(let response):
            do throws(GenesysWireError) {
                return .success(try GenesysHistoryPage(decoding: response.body))
            } catch {
                return .failure(ChannelError(.server, "a history page is not one: \(error)"))
            }
        }
    }
}

// Authenticated sessions: the channel's token is the OAuth authorization code.
extension GenesysMessagingChannel {
    /// `POST …/token/oauthcodegrantjwtexchange` with the channel's token as the code (and the configured
    /// redirect URI and PKCE verifier). Without a valid token the sign-in is needed.
    func exchangeCode() async -> Result<GenesysAuthBodies.AuthJwt, ChannelError> {
        let state = await self.host.tokenState()
        guard let code = state.token?.value else {
            return .failure(ChannelError(.authentication, "\(self.prefix): the authenticated session needs an OAuth code: \(state)"))
        }
        let body = GenesysAuthBodies.codeExchange(
            deploymentId: self.configuration.deploymentId,
            code: code,
            redirectUri: self.configuration.redirectUri,
            codeVerifier: self.configuration.codeVerifier
        )
        let request = self.configuration.post(self.configuration.endpoints.jwtExchange, body)
        do throws(NetworkError) {
            return Self.authJwt(.success(try await self.host.network.send(request)), what: "the OAuth code's exchange")
        } catch {
            return Self.authJwt(.failure(error), what: "the OAuth code's exchange")
        }
    }

    /// `{jwt, refreshToken?}`, or why not: a 400 or 401 is the credential's (a new code is needed).
    static func authJwt(_ outcome: Result<NetworkResponse, NetworkError>, what: String) -> Result<GenesysAuthBodies.AuthJwt, ChannelError> {
        switch outcome {
        case .failure(let error):
            return .failure(ChannelError(.transient, "\(GenesysChatSession.prefix): \(what) failed: \(error)"))
        case .success(let response) where (400...403).contains(response.status):
            return .failure(ChannelError(.authentication, "\(GenesysChatSession.prefix): \(what) was refused: HTTP \(response.status)"))
        case .success(let response) where response.status != 200:
            return .failure(ChannelError(.transient, "\(GenesysChatSession.prefix): \(what) failed: HTTP \(response.status)"))
        case .success(let response):
            do throws(GenesysWireError) {
                return .success(try GenesysAuthBodies.AuthJwt(decoding: response.body))
            } catch {
                return .failure(ChannelError(.server, "\(GenesysChatSession.prefix): \(what) answered what is not a token: \(error)"))
            }
        }
    }
}
