package import AttendantPluginAPI

/// What a keep-alive of the host's cycle does with a registered binding. Normally the refresh timer has
/// renewed it already and the keep-alive only confirms that it is fresh.
package enum RegistrationKeepAlive: Sendable, Equatable {
    /// The binding has lived less than half its time: nothing to send.
    case fresh
    /// Register again.
    case refresh
    /// Ephemeral credentials that would not outlive the next cycle: derive new ones and register with them.
    case renewCredentials

    /// - Parameters:
    ///   - registeredAt: when the registrar last granted the binding (nil: never).
    ///   - grantedExpires: the lifetime it granted, in seconds.
    ///   - credentialsExpiry: when ephemeral credentials in use expire (seconds since 1970), nil otherwise.
    ///   - cycle: the host's keep-alive cycle (the binding's requested lifetime), in seconds.
    package static func decide(now: UnixTime, registeredAt: UnixTime?, grantedExpires: UInt32, credentialsExpiry: Int64?, cycle: UInt32) -> Self {
        if let credentialsExpiry, Double(credentialsExpiry) - now.secondsSince1970 < 2 * Double(cycle) { return .renewCredentials }
        if let registeredAt, (now - registeredAt).seconds < Double(grantedExpires) / 2 { return .fresh }
        return .refresh
    }
}
