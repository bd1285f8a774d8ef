import AttendantPluginKit
import AttendantPluginTestKit
import SIPCore
import Testing

/// Runs a ``RegistrationStateMachine`` the way the plugin will, on a virtual clock: it records what the
/// machine sends and reports, keeps its timers, and fires them as time is advanced. No sleeping.
struct RegistrationDriver {
    typealias Action = RegistrationStateMachine.Action

    var machine: RegistrationStateMachine
    private(set) var now: Duration = .zero
    private(set) var timers: [RegistrationStateMachine.TimerID: Duration] = [:]
    /// Every request put on the wire, with the virtual time it left.
    private(set) var sent: [(at: Duration, request: SIPRequest)] = []
    /// Registered / unregistered / failed reports, in order.
    private(set) var reports: [Action] = []

    init(
        transport: String = "TCP",
        outbound: Bool = false,
        credentials: RegistrationCredentials = .none,
        configure: (inout RegistrationConfiguration) -> Void = { _ in }
    ) throws {
        var builder = SIPRegisterBuilder(
            registrar: try SIPURI(parsing: "sip:example.com"),
            addressOfRecord: try SIPURI(parsing: "sip:alice@example.com"),
            contact: try SIPURI(parsing: "sip:alice@192.0.2.10:5060;transport=\(transport.lowercased())"),
            viaTransport: transport,
            viaHost: "192.0.2.10",
            viaPort: 5060
        )
        builder.instanceID = "urn:uuid:00000000-0000-1000-8000-000A95A0E128"
        builder.outbound = outbound
        var configuration = RegistrationConfiguration(builder: builder)
        configure(&configuration)
        self.machine = RegistrationStateMachine(
            configuration: configuration,
            credentials: credentials,
            hashing: InMemoryHashing(),
            identifiers: SIPIdentifiers(generator: SeededGenerator(seed: 42))
        )
    }

    var lastRequest: SIPRequest { self.sent.last!.request }
    var timerKinds: Set<RegistrationStateMachine.Timer> { Set(self.timers.keys.map(\.kind)) }

    mutating func apply(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .send(let request): self.sent.append((self.now, request))
            case .setTimer(let id, let after): self.timers[id] = self.now + after
            case .cancelTimer(let id):
                #expect(self.timers[id] != nil, "cancelled a timer that was not set")
                self.timers[id] = nil
            case .registered, .unregistered, .failed: self.reports.append(action)
            }
        }
    }

    mutating func start() { self.apply(self.machine.start()) }
    mutating func stop() { self.apply(self.machine.stop()) }
    mutating func refresh() { self.apply(self.machine.refresh()) }
    mutating func credentialsChanged(_ credentials: RegistrationCredentials) { self.apply(self.machine.credentialsChanged(credentials)) }
    mutating func transportFailed() { self.apply(self.machine.transportFailed("connection reset")) }

    /// Answers the last request sent.
    mutating func respond(_ statusCode: Int, _ headers: SIPHeaders = [], contact: SIPNameAddress? = nil) {
        let response = SIPResponse.answering(self.lastRequest, statusCode: statusCode, toTag: "reg1", contact: contact, extraHeaders: headers)
        self.apply(self.machine.receive(response))
    }

    /// A 200 that echoes our Contact with the given lifetime.
    mutating func respondOK(expires: UInt32 = 600, _ headers: SIPHeaders = []) throws {
        var contact = try #require(try self.lastRequest.headers.contacts.first)
        contact.parameters.set("expires", String(expires))
        self.respond(200, headers, contact: contact)
    }

    /// Moves the virtual clock forward, firing due timers in order.
    mutating func advance(by duration: Duration) {
        let target = self.now + duration
        while let (id, deadline) = self.timers.filter({ $0.value <= target }).min(by: { $0.value < $1.value }) {
            self.now = deadline
            self.timers[id] = nil
            self.apply(self.machine.timerFired(id))
        }
        self.now = target
    }

    var lastReport: Action? { self.reports.last }

    var lastFailure: RegistrationError? {
        if case .failed(let error) = self.reports.last { return error }
        return nil
    }

    var lastGrant: RegistrationGrant? {
        if case .registered(let grant) = self.reports.last { return grant }
        return nil
    }
}

extension SIPRequest {
    var expiresHeader: String? { self.headers[.expires] }
    var cseqNumber: UInt32? { try? self.headers.cseq.number }
    var branch: String? { (try? self.headers.topVia)?.branch }
    var authorization: SIPCredentials? { (try? self.headers.authorization)?.first }
}
