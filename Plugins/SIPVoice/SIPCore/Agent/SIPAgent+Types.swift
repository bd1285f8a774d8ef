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

    public enum Action: Sendable {
        /// Send on the flow, or (a response) to where its request came from.
        case send(SIPMessage, to: Origin?)
        /// Send an RFC 5626 CRLFCRLF ping on the flow.
        case ping
        case setTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        /// Cancel every call's timers (the calls are gone).
        case cancelCallTimers
        case emit(ChannelEvent)
        case log(Logger.Level, String)
        /// The waiting `listen()` hears this (nil: it listens).
        case listened(ChannelError?)
        /// These keep-alives hear this (nil: the binding is fresh).
        case keptAlive([UInt64], ChannelError?)
        /// The waiting stop may return.
        case stopped
        /// Close the flow; what arrives on it afterwards is not news.
        case closeFlow
    }
}
