import AttendantPluginAPI
package import AttendantPluginKit

// What goes into an ``SIPAgent`` and what comes out of it.
extension SIPAgent {
    /// What the agent's messages name, and its host's cycle.
    package struct Configuration: Sendable {
        /// The start of every message (the plugin's name).
        package var prefix: String
        package var addressOfRecord: String
        /// Where the registrar is, as the user configured it.
        package var registrarDescription: String
        /// The host's keep-alive cycle, the `Expires` asked for.
        package var cycle: UInt32

        package init(prefix: String, addressOfRecord: String, registrarDescription: String, cycle: UInt32) {
            self.prefix = prefix
            self.addressOfRecord = addressOfRecord
            self.registrarDescription = registrarDescription
            self.cycle = cycle
        }
    }

    /// The flow a `listen()` opened.
    package struct Flow: Sendable {
        /// A TCP flow: an RFC 5626 registration keeps it alive with CRLFCRLF pings.
        package var pings: Bool
        /// `host:port` of the local end.
        package var localAddress: String

        package init(pings: Bool, localAddress: String) {
            self.pings = pings
            self.localAddress = localAddress
        }
    }

    /// Renewed ephemeral credentials a keep-alive may register with, and when they expire.
    package struct Renewal: Sendable {
        package var credentials: RegistrationCredentials
        package var expiry: Int64

        package init(credentials: RegistrationCredentials, expiry: Int64) {
            self.credentials = credentials
            self.expiry = expiry
        }
    }

    package enum Timer: Hashable, Sendable {
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
    package enum Work: Sendable {
        /// Send on the flow, or (a response) to where its request came from.
        case send(SIPMessage, to: Origin?)
        /// Send an RFC 5626 CRLFCRLF ping on the flow.
        case ping
    }

    package typealias Action = AgentAction<Timer, Work>
}
