/// A timer a state machine asks its driver to run: which one, and which arming of it. When the timer
/// fires, the driver hands the same value back; a value from an earlier arming is stale and ignored, so a
/// timer that fired while it was being cancelled or re-armed does no harm.
@frozen
public struct TimerID<Kind: Sendable & Hashable>: Sendable, Hashable, CustomStringConvertible {
    public let kind: Kind
    public let generation: UInt64

    @inlinable
    init(_ kind: Kind, _ generation: UInt64) {
        self.kind = kind
        self.generation = generation
    }

    public var description: String { "\(self.kind)#\(self.generation)" }
}

/// The timers a pure state machine has armed, so it can tell a live timer from a stale one. The machine
/// arms and disarms; its driver runs the actual timers on the host's clock and reports each firing with
/// its ``TimerID``.
@frozen
public struct TimerTable<Kind: Sendable & Hashable>: Sendable {
    @usableFromInline var armed: [Kind: TimerID<Kind>] = [:]
    @usableFromInline var generation: UInt64 = 0

    @inlinable
    public init() {}

    /// Arms `kind`, replacing an earlier arming (which then counts as stale).
    @inlinable
    public mutating func arm(_ kind: Kind) -> TimerID<Kind> {
        self.generation += 1
        let id = TimerID(kind, self.generation)
        self.armed[kind] = id
        return id
    }

    /// Disarms the timer if armed and returns its id, for a cancel action.
    @inlinable
    public mutating func disarm(_ kind: Kind) -> TimerID<Kind>? {
        self.armed.removeValue(forKey: kind)
    }

    /// Whether `id` is the live arming of its kind; if so it is consumed.
    @inlinable
    public mutating func fire(_ id: TimerID<Kind>) -> Bool {
        guard self.armed[id.kind] == id else { return false }
        self.armed[id.kind] = nil
        return true
    }

    @inlinable
    public func isArmed(_ kind: Kind) -> Bool { self.armed[kind] != nil }

    /// Whether `id` is the live arming of its kind (without consuming it).
    @inlinable
    public func isLive(_ id: TimerID<Kind>) -> Bool { self.armed[id.kind] == id }

    @inlinable
    public var armedKinds: [Kind] { Array(self.armed.keys) }
}
