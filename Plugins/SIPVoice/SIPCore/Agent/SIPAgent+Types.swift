public import AttendantPluginAPI
public import AttendantPluginKit

// What goes into an ``SIPAgent`` and what comes out of it.
extension SIPAgent {
    /// What the agent's messages name, and its host's cycle.
    public struct Configuration: Sendable {
        /// The start of every message (the plugin's name).
        public var prefix: String
        public var addressOfRecord: String
        /// Where the registrar is, as the user configured it.
        public var registrarDescription: String
        /// The host's keep-alive cycle, the `Expires` asked for.
        public var cycle: UInt32

        public init(prefix: String, addressOfRecord: String, registrarDescription: String, cycle: UInt32) {
            self.prefix = prefix
            self.addressOfRecord = addressOfRecord
            self.registrarDescription = registrarDescription
            self.cycle = cycle
        }
    }

    /// The flow a `listen()` opened.
    public struct Flow: Sendable {
        /// A TCP flow: an RFC 5626 registration keeps it alive with CRLFCRLF pings.
        public var pings: Bool
        /// `host:port` of the local end.
        public var localAddress: String

        public init(pings: Bool, localAddress: String) {
            self.pings = pings
            self.localAddress = localAddress
        }
    }

    /// Renewed ephemeral credentials a keep-alive may register with, and when they expire.
    public struct Renewal: Sendable {
        public var credentials: RegistrationCredentials
        public var expiry: Int64

        public init(credentials: RegistrationCredentials, expiry: Int64) {
            self.credentials = credentials
            self.expiry = expiry
        }
    }

    public enum Timer: Hashable, Sendable {
        case registration(RegistrationStateMachine.TimerID)
        case call(String, InviteServerTransaction.TimerID)
        /// Send the next RFC 5626 CRLFCRLF ping.
        case ping
        /// The pong is overdue: the flow is dead.
        case pongTimeout
        /// Stop waiting for the unregistering REGISTER's answer.
        case stopDeadline
    }

    /// The agent's own work on the flow (``AgentAction/work(_:)``).
    public enum Work: Sendable {
        /// Send on the flow, or (a response) to where its request came from.
        case send(SIPMessage, to: Origin?)
        /// Send an RFC 5626 CRLFCRLF ping on the flow.
        case ping
    }

    public typealias Action = AgentAction<Timer, Work>
}
