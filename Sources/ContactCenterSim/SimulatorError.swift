/// Why a simulator operation failed: what, and what to do.
public struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// The user has no unexpired binding to call.
        public static let notRegistered = Code("not-registered")
        /// A wait ran out of time.
        public static let timeout = Code("timeout")
        /// A socket could not be opened or written.
        public static let transport = Code("transport")
        /// The operation does not fit the call's state (cancel after a final response, say).
        public static let callState = Code("call-state")
        /// A KARTE campaign list is not valid JSON of the expected shape.
        public static let karteCampaigns = Code("karte-campaigns")
        /// A KARTE fault request names no known mode, or a bad parameter.
        public static let karteFault = Code("karte-fault")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "simulator \(self.code): \(self.message)" }

    static func notRegistered(_ user: String) -> SimulatorError {
        SimulatorError(.notRegistered, "cannot call '\(user)': no unexpired binding; let the user agent REGISTER first (see waitForBinding)")
    }

    static func timeout(_ what: String, _ timeout: Duration) -> SimulatorError {
        SimulatorError(.timeout, "\(what) within \(timeout)")
    }
}
