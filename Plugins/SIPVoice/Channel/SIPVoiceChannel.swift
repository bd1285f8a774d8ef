import AttendantPluginAPI
import AttendantPluginKit
import SIPCore
import Synchronization

/// A SIP user agent that stays registered and turns incoming INVITEs into contacts.
///
/// Everything protocol-shaped is decided by SIPCore's pure ``SIPAgent`` (the registration machine, the
/// call table, RFC 5626 pings, who waits for what), and the kit's ``AgentDriver`` runs it: the lock, the
/// timers on the host's clock (so tests compress hours into milliseconds), the flow's generations, and the
/// callers of `listen()`, `keepAlive()` and `stopListening()` waiting on the agent. This class opens the
/// flow, turns what arrives on it into the agent's events, and sends what the agent asks on it, on the
/// caller's thread (an INVITE's 180 goes out without a hop).
///
/// Registration follows the host's cycle: `listen()` registers with `Expires` equal to the cycle
/// (`register-expires`, 600 s); the agent refreshes at 90 % of what the registrar granted, so a binding
/// never lapses between cycles; `keepAlive()` re-registers when the binding has lived half its time or
/// more (normally: the refresh timer already renewed it, and the keep-alive only confirms it is fresh);
/// a renewed token re-registers at once, the old binding staying valid until the new one is in place.
final class SIPVoiceChannel: Channel {
    typealias Agent = SIPAgent

    let configuration: SIPVoiceConfiguration
    let host: any ChannelHost
    let driver: AgentDriver<Agent, SIPTransport>
    /// Why the last flow could not be opened, when retrying cannot help (a TLS certificate that does not
    /// verify).
    private let refusal = Mutex<String?>(nil)

    init(configuration: SIPVoiceConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        let names = Agent.Configuration(
            prefix: Self.prefix,
            addressOfRecord: configuration.addressOfRecord.description,
            registrarDescription: configuration.registrarDescription,
            cycle: configuration.registerExpires
        )
        self.driver = AgentDriver(agent: Agent(configuration: names, hashing: host.hashing), host: host, prefix: Self.prefix) { work, transport in
            switch work {
            case .send(let message, let origin): transport.send(message, to: origin)
            case .ping: transport.ping()
            }
        }
    }

    /// The start of every message (the plugin's name).
    static let prefix = "sip-voice"
    var prefix: String { Self.prefix }

    // MARK: Channel

    func listen() async throws {
        do {
            try await self.listenOnce()
        } catch {
            // The driver hands what failed to open to the agent, which retries it; a refused certificate
            // is not worth retrying (no retry mends it), so the channel fails, saying why.
            if let refusal = self.refusal.withLock({ refusal in
                defer { refusal = nil }
                return refusal
            }) {
                throw ChannelError(.configuration, "\(self.prefix): \(refusal)")
            }
            throw error
        }
    }

    private func listenOnce() async throws {
        self.refusal.withLock { $0 = nil }
        try await self.driver.listen { () async throws(ChannelError) in
            (try self.credentials(for: await self.host.tokenState()), try await self.instanceID())
        } open: { flow in
            do {
                return try await SIPTransport.open(
                    self.configuration.transport,
                    host: self.configuration.registrarHost,
                    port: self.configuration.registrarPort,
                    network: self.host.network
                ) { [weak self] arrival in self?.arrived(arrival, flow: flow) }
            } catch let error as TransportError {
                if error.code == .configuration { self.refusal.withLock { $0 = error.description } }
                throw error
            }
        } start: { agent, transport, prepared in
            let (credentials, instanceID) = prepared
            let registration = self.registrationConfiguration(transport: transport, instanceID: instanceID)
            // RFC 5626 section 4.4.1: CRLFCRLF keep-alives on every connection-oriented flow, TLS too.
            let local = transport.address()
            let flow = Agent.Flow(pings: transport.kind.isReliable, localAddress: "\(local.host):\(local.port)")
            return agent.listen(on: flow, registration: registration, credentials: credentials, now: self.host.now())
        }
    }

    func stopListening() async {
        await self.driver.stop { $0.stop(now: self.host.now()) }
    }

    func keepAlive() async throws {
        let token = self.configuration.credentialSource.kind == .ephemeral ? await self.host.currentToken() : nil
        let renewal = token.map { self.configuration.credentialSource.ephemeral(secret: $0.value, now: self.host.now(), hashing: self.host.hashing) }
        try await self.driver.keepAlive { agent, waiter in agent.keepAlive(waiter: waiter, renewal: renewal, now: self.host.now()) }
    }

    func tokenDidChange(_ token: ChannelToken) async {
        let credentials: RegistrationCredentials
        do {
            credentials = try self.credentials(for: .available(token))
        } catch {
            self.host.logger.warning("\(self.prefix): the renewed token cannot be used: \(error)")
            return
        }
        self.driver.run { $0.credentialsChanged(credentials, now: self.host.now()) }
    }

    func applicationStateDidChange(_ applicationState: ApplicationState) async {
        guard applicationState == .foreground else { return }
        self.driver.run { $0.wake(now: self.host.now()) }
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        switch request {
        case .accept(let id):
            return try await self.accept(id)
        case .decline(let id):
            try self.driver.run { agent throws(ChannelError) in try agent.decline(id) }
            return .done
        case .custom("registration", _):
            return .fields(self.driver.withState { $0.agent.report(busy: $0.listensUnderWay > 0) })
        default:
            throw ChannelError(.unsupported, "\(self.prefix): no \(request.name) requests here; it knows accept, decline and registration")
        }
    }

    // MARK: The flow

    /// What arrives on a flow, for the agent (answered on this thread, before a timer it arms wakes another).
    func arrived(_ arrival: SIPTransport.Arrival, flow: Generation) {
        self.driver.arrived(on: flow) { agent, transport in
            let now = self.host.now()
            switch arrival {
            case .message(.response(let response), _):
                return agent.receive(response, now: now)
            case .message(.request(let request), var origin):
                guard let transport else { return [] }
                origin.isRegistrarFlow = transport.isRegistrar(origin)
                return agent.receive(request, from: origin, now: now) { self.callSettings(transport) }
            case .pong:
                return agent.pong()
            case .garbage(let error, let from, let closed):
                let closing = closed ? "; closed that connection" : ""
                return [.log(.warning, "\(self.prefix): ignored a message from \(from) that is not valid SIP: \(error)\(closing)")]
            case .truncated(let from, let size):
                return [
                    .log(
                        .warning,
                        "\(self.prefix): ignored a datagram from \(from) that filled the whole \(size)-byte receive buffer and may be truncated; send requests that large over TCP"
                    )
                ]
            case .unreachable(let reason):
                return agent.unreachable(reason, now: now)
            case .closed(let reason):
                return agent.flowFailed(reason, now: now)
            }
        }
    }
}

extension SIPTransport: AgentLink {}
