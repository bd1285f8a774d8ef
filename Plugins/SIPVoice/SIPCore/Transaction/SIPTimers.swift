/// RFC 3261's timer values (section 17.1.1.1 and table 4).
public struct SIPTimers: Sendable, Hashable {
    /// Round-trip estimate: the first retransmission interval (500 ms).
    public var t1: Duration = .milliseconds(500)
    /// The longest retransmission interval for non-INVITE requests and INVITE responses (4 s).
    public var t2: Duration = .seconds(4)
    /// How long a message can stay in the network (5 s).
    public var t4: Duration = .seconds(5)

    public init(t1: Duration = .milliseconds(500), t2: Duration = .seconds(4), t4: Duration = .seconds(5)) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
    }

    /// Timers B, F and H: 64·T1 (32 s), after which a transaction gives up.
    public var transactionTimeout: Duration { self.t1 * 64 }
}

/// A timer a state machine asks its driver to run: which one, and which arming of it. When a timer fires,
/// the driver hands the same value back; a value from an earlier arming is ignored, so a timer that fired
/// while it was being cancelled does no harm.
public struct SIPTimerID<Kind: Sendable & Hashable>: Sendable, Hashable {
    public let kind: Kind
    public let generation: UInt64

    init(_ kind: Kind, _ generation: UInt64) {
        self.kind = kind
        self.generation = generation
    }
}

/// The timers a machine has armed, so it can tell a live timer from a stale one.
struct SIPTimerTable<Kind: Sendable & Hashable>: Sendable {
    private var armed: [Kind: SIPTimerID<Kind>] = [:]
    private var generation: UInt64 = 0

    mutating func arm(_ kind: Kind) -> SIPTimerID<Kind> {
        self.generation += 1
        let id = SIPTimerID(kind, self.generation)
        self.armed[kind] = id
        return id
    }

    /// Disarms the timer if armed and returns its id, for a cancel action.
    mutating func disarm(_ kind: Kind) -> SIPTimerID<Kind>? {
        self.armed.removeValue(forKey: kind)
    }

    /// Whether `id` is the live arming of its kind; if so it is consumed.
    mutating func fire(_ id: SIPTimerID<Kind>) -> Bool {
        guard self.armed[id.kind] == id else { return false }
        self.armed[id.kind] = nil
        return true
    }

    func isArmed(_ kind: Kind) -> Bool { self.armed[kind] != nil }

    var armedKinds: [Kind] { Array(self.armed.keys) }
}
