import AttendantPluginAPI
import GMSCore
import Synchronization

/// The settings of one GMSChat channel (`[channel.gms-chat]`); see ``GMSChatPluginFactory``.
struct GMSChatConfiguration: Sendable {
    /// Which of GMS's chat APIs: 1 (HTTP operations, events on `/_genesys`, the seed's) or 2 (everything
    /// over CometD on `/service/chatV2/<service>`).
    var apiVersion: Int
    /// GMS's base, `https://gms.example.com:8443/genesys`: v1's REST calls hang off it.
    var baseURL: String
    /// The CometD endpoint: `<base>/cometd` unless `cometd-url` says otherwise.
    var cometdURL: String
    /// v2: the chat service's name (`/service/chatV2/<service>`); v1: the service `request-chat` asks for.
    var service: String
    /// The connection type tried first; WebSocket falls back to long-polling when its upgrade fails.
    var transport: BayeuxConnectionType
    var nickname: String?
    var firstName: String?
    var lastName: String?
    var email: String?
    var subject: String?
    var userData: [String: String] = [:]
    /// v1: the `gms_user` header on every request, CometD's included.
    var gmsUser: String
    /// `listen()` starts a chat when there is none; off, `attendantctl chat connect` (or the first
    /// `chat send`) starts one.
    var autoStart: Bool
    /// The Bayeux client's timings.
    var machine = BayeuxClientStateMachine.Configuration()

    init(_ settings: ChannelSettings, channelName: String) throws {
        let version = try settings.integer("api-version") ?? 2
        guard version == 1 || version == 2 else {
            throw settings.error("api-version", "must be 1 (the chat over HTTP, events over CometD) or 2 (the chat over CometD), not \(version)")
        }
        self.apiVersion = version
        guard var base = try settings.string("url") else {
            throw settings.error("url", "is missing; give GMS's base URL, such as \"https://gms.example.com:8443/genesys\"")
        }
        try settings.checkURL(base, key: "url", schemes: ["http", "https"])
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        if let cometd = try settings.string("cometd-url") {
            try settings.checkURL(cometd, key: "cometd-url", schemes: ["http", "https"])
            self.cometdURL = cometd
        } else {
            self.cometdURL = base + "/cometd"
        }
        let service = try settings.string("service") ?? (version == 2 ? "customer-support" : "request-chat")
        guard !service.isEmpty, service.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw settings.error("service", "\"\(service)\" is not a GMS service name (letters, digits, '-', '_' and '.')")
        }
        self.service = service
        switch try settings.string("transport") ?? "websocket" {
        case "websocket": self.transport = .webSocket
        case "long-polling": self.transport = .longPolling
        case let other: throw settings.error("transport", "\"\(other)\" is neither \"websocket\" (falls back to long-polling) nor \"long-polling\"")
        }
        self.nickname = try settings.string("nickname")
        self.firstName = try settings.string("first-name")
        self.lastName = try settings.string("last-name")
        if self.nickname == nil, (self.firstName == nil) != (self.lastName == nil) {
            throw settings.error(
                self.firstName == nil ? "first-name" : "last-name",
                "is missing; GMS takes a nickname, or both first-name and last-name"
            )
        }
        self.email = try settings.string("email")
        self.subject = try settings.string("subject")
        // [channel.gms-chat.user-data]: requestChat's userData, each value a string (numbers and booleans
        // are written as TOML writes them). Only chat API v2's requestChat carries it.
        if let table = try settings.table("user-data") {
            for key in table.unknownKeys {
                guard let value = try? table.string(key) ?? nil else {
                    let number = (try? table.integer(key)).flatMap { $0.map(String.init) } ?? (try? table.bool(key)).flatMap { $0.map(String.init) }
                    guard let number else { throw table.error(key, "expected a string, a number or a boolean") }
                    self.userData[key] = number
                    continue
                }
                self.userData[key] = value
            }
            if version == 1, !self.userData.isEmpty {
                throw settings.error("user-data", "is sent with chat API v2's requestChat; with api-version = 1 it would reach nobody")
            }
        }
        self.gmsUser = try settings.string("gms-user") ?? channelName
        guard !self.gmsUser.isEmpty else { throw settings.error("gms-user", "must not be empty") }
        self.autoStart = try settings.bool("auto-start") ?? false
        if let delay = try settings.duration("network-delay") {
            guard delay >= .milliseconds(500) else { throw settings.error("network-delay", "must be at least 0.5 s") }
            self.machine.networkDelay = delay
        }
        self.machine.connectionType = self.transport
    }

    /// What messages call the server: `GMS at https://gms.example.com/genesys (chat API v2)`.
    var serverDescription: String { "GMS at \(self.baseURL) (chat API v\(self.apiVersion))" }

    /// v2's service channel.
    var serviceChannel: String { GMSChatInbound.serviceChannel(self.service) }

    /// What the chat session is made with.
    var sessionSettings: GMSChatSession.Settings {
        GMSChatSession.Settings(
            apiVersion: self.apiVersion,
            service: self.service,
            serverDescription: self.serverDescription,
            networkDelay: self.machine.networkDelay,
            baseURL: self.baseURL,
            gmsUser: self.gmsUser,
            customer: self.customer
        )
    }

    /// Where the CometD server is (v1 with `gms_user` on every request), and how its batches are read.
    var bayeux: BayeuxTransport.Configuration {
        var bayeux = BayeuxTransport.Configuration(url: self.cometdURL)
        bayeux.machine = self.machine
        if self.apiVersion == 1 { bayeux.headers = [NetworkHeader("gms_user", self.gmsUser)] }
        return bayeux
    }

    /// Who the customer is to GMS (its display name: the nickname, else first and last name, else
    /// "Customer").
    var customer: GMSCustomer {
        GMSCustomer(
            nickname: self.nickname,
            firstName: self.firstName,
            lastName: self.lastName,
            email: self.email,
            subject: self.subject,
            userData: self.userData
        )
    }
}
