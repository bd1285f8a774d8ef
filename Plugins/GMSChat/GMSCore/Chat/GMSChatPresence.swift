/// Whether the channel listens, and whether the host is in the foreground, as one state: in the background
/// a listening channel has said goodbye to GMS (``asleep``), so a session the server ends then is not a
/// channel that stopped, and the foreground starts a new one.
package enum GMSChatPresence: Sendable, Hashable {
    /// Not listening: `listen()` has not connected yet, or the host stopped the channel, or the server
    /// ended its session.
    case idle
    /// `listen()` connected: the channel listens.
    case listening
    /// Listening, in the background: the session said goodbye with the position shown; the foreground
    /// starts a new one.
    case asleep
    /// Not listening, in the background: the foreground starts nothing, but a `listen()` that connects now
    /// sleeps until it.
    case idleInBackground

    package var isListening: Bool { self == .listening || self == .asleep }

    package var isInBackground: Bool { self == .asleep || self == .idleInBackground }

    /// What the supervisor's keep-alive finds: the session is over only for a channel that stopped
    /// listening in the foreground (one in the background said goodbye itself).
    package var sessionIsOver: Bool { self == .idle }

    /// `listen()` connected.
    package mutating func listened() {
        self = self.isInBackground ? .asleep : .listening
    }

    /// The host stops the channel.
    package mutating func stopListening() {
        self = self.isInBackground ? .idleInBackground : .idle
    }

    /// The server ended the session: true if that stops a listening channel in the foreground, which the
    /// host is told once.
    package mutating func serverEnded() -> Bool {
        guard self == .listening else { return false }
        self = .idle
        return true
    }

    /// The host went to the background: true if the channel listens (and says goodbye).
    package mutating func enterBackground() -> Bool {
        self = self.isListening ? .asleep : .idleInBackground
        return self == .asleep
    }

    /// The host is in the foreground (or `listen()` began): true if a listening channel comes back from
    /// the background (and starts a new session).
    package mutating func enterForeground() -> Bool {
        defer { self = self.isListening ? .listening : .idle }
        return self == .asleep
    }
}
