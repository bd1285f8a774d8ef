public import Systemd

/// Why a ``ControlClient`` request did not get an answer from the daemon, or got an error.
///
/// The ``code`` tells the classes apart (the daemon is not there, the daemon refused, the bus failed);
/// the ``description`` is one sentence for people that says what to do.
public struct ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { self.name }

        /// No session bus to connect to.
        public static let noBus = Code("noBus")
        /// The bus is there, but nobody owns ``ControlInterface/busName``.
        public static let notRunning = Code("notRunning")
        /// The daemon answered with a D-Bus error (``ControlClientError/name`` says which).
        public static let refused = Code("refused")
        /// The bus connection failed, or an answer did not have the shape the API promises.
        public static let failed = Code("failed")
        /// Something on this side failed: a file to read or write.
        public static let local = Code("local")
    }

    public var code: Code
    /// The D-Bus error name when the daemon sent one (`org.attendant.Attendant1.Error.NoSuchChannel`, …).
    public var name: String?
    public var message: String

    public init(code: Code, name: String? = nil, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    public var description: String { self.message }

    /// How to start the daemon, as the end of the not-running messages.
    public static let startHint = "Start it with: systemctl --user start attendantd"

    public static func noBus(_ address: BusConnection.Address, _ error: BusError) -> ControlClientError {
        ControlClientError(
            code: .noBus,
            message: "cannot reach attendantd: there is no \(address) to connect to (\(error)). "
                + "Log in to a session with a user bus (or set DBUS_SESSION_BUS_ADDRESS), then start it with: systemctl --user start attendantd"
        )
    }

    public static func notRunning(_ address: BusConnection.Address) -> ControlClientError {
        ControlClientError(
            code: .notRunning,
            message: "attendantd is not running on this \(address) (\(ControlInterface.busName) has no owner). \(startHint)"
        )
    }

    /// Classes a failed call: the daemon's own errors, the daemon having gone, or the bus failing.
    static func call(_ member: String, _ error: BusError, on address: BusConnection.Address) -> ControlClientError {
        switch error {
        case .reply(let name, _) where name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .notRunning(address)
        case .reply("org.freedesktop.DBus.Error.NoReply", let message) where message.contains("disconnected"):
            // The daemon left with our call delivered: dbus-daemon answers for it ("Message recipient
            // disconnected from message bus without replying"). A timeout's NoReply is not this.
            return .notRunning(address)
        case .reply(let name, let message):
            return ControlClientError(code: .refused, name: name, message: message.isEmpty ? "\(member) failed: \(name)" : message)
        case .disconnected:
            return ControlClientError(code: .failed, message: "the connection to the \(address) closed while calling \(member)")
        case .system, .malformed:
            return ControlClientError(code: .failed, message: "calling \(ControlInterface.interface).\(member): \(error)")
        }
    }

    static func malformed(_ member: String, _ reply: [BusValue]) -> ControlClientError {
        ControlClientError(
            code: .failed,
            message:
                "attendantd answered \(member) with a reply of an unexpected shape (\(reply.map(\.signature).joined(separator: ", "))); is it another version?"
        )
    }
}
