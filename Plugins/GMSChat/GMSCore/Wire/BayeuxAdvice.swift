#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// A server's advice (Bayeux 1.0 "advice"; CometD adds `maxInterval`). The newest advice replaces the
/// earlier one; a field the server leaves out keeps the client's default (as CometD's JavaScript client
/// merges them).
package struct BayeuxAdvice: Sendable, Hashable {
    /// What to do after a connect ends.
    package struct Reconnect: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// Connect again after `interval`.
        package static let retry = Reconnect("retry")
        /// The session is gone: handshake again, never retry the connect.
        package static let handshake = Reconnect("handshake")
        /// Neither retry nor handshake.
        package static let none = Reconnect("none")

        package var description: String { self.rawValue }
    }

    package var reconnect: Reconnect?
    /// The least wait before the next connect; negative means do not retry.
    package var interval: Duration?
    /// How long the server holds a `/meta/connect`.
    package var timeout: Duration?
    /// How long the server waits for the next connect before it forgets the client (CometD's 10 s;
    /// GMS's "10-second timer").
    package var maxInterval: Duration?

    package init(reconnect: Reconnect? = nil, interval: Duration? = nil, timeout: Duration? = nil, maxInterval: Duration? = nil) {
        self.reconnect = reconnect
        self.interval = interval
        self.timeout = timeout
        self.maxInterval = maxInterval
    }

    /// Reads the fields it knows; a field of the wrong type is left out (advice is a hint, and the
    /// defaults are safe).
    package init(decoding object: [String: JSONValue]) {
        self.reconnect = object["reconnect"]?.stringValue.map(Reconnect.init)
        self.interval = object["interval"].flatMap(Self.milliseconds)
        self.timeout = object["timeout"].flatMap(Self.milliseconds)
        self.maxInterval = object["maxInterval"].flatMap(Self.milliseconds)
    }

    /// This advice with `newer`'s fields where it has them.
    package func merging(_ newer: BayeuxAdvice) -> BayeuxAdvice {
        BayeuxAdvice(
            reconnect: newer.reconnect ?? self.reconnect,
            interval: newer.interval ?? self.interval,
            timeout: newer.timeout ?? self.timeout,
            maxInterval: newer.maxInterval ?? self.maxInterval
        )
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let reconnect = self.reconnect { object["reconnect"] = .string(reconnect.rawValue) }
        if let interval = self.interval { object["interval"] = .number(Double(interval.milliseconds)) }
        if let timeout = self.timeout { object["timeout"] = .number(Double(timeout.milliseconds)) }
        if let maxInterval = self.maxInterval { object["maxInterval"] = .number(Double(maxInterval.milliseconds)) }
        return .object(object)
    }

    private static func milliseconds(_ value: JSONValue) -> Duration? {
        guard case .number(let number) = value, number.isFinite, abs(number) < 1e12 else { return nil }
        return .milliseconds(Int64(number))
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
