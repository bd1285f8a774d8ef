/// Why a simulator operation failed: what, and what to do.
package struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { self.rawValue }

        /// The user has no unexpired binding to call.
        package static let notRegistered = Code("not-registered")
        /// A wait ran out of time.
        package static let timeout = Code("timeout")
        /// A socket could not be opened or written.
        package static let transport = Code("transport")
        /// The operation does not fit the call's state (cancel after a final response, say).
        package static let callState = Code("call-state")
        /// A KARTE campaign list is not valid JSON of the expected shape.
        package static let karteCampaigns = Code("karte-campaigns")
        /// A KARTE fault request names no known mode, or a bad parameter.
        package static let karteFault = Code("karte-fault")
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "simulator \(self.code): \(self.message)" }

    static func notRegistered(_ user: String) -> SimulatorError {
        SimulatorError(.notRegistered, "cannot call '\(user)': no unexpired binding; let the user agent REGISTER first (see waitForBinding)")
    }

    static func timeout(_ what: String, _ timeout: Duration) -> SimulatorError {
        SimulatorError(.timeout, "\(what) within \(timeout)")
    }
}
