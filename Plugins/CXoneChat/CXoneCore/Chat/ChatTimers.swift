/// A timer the chat state machine asks its driver to run: which one, and which arming of it. When a timer
/// fires, the driver hands the same value back; a value from an earlier arming is ignored, so a timer that
/// fired while it was being cancelled does no harm.
public struct ChatTimerID: Sendable, Hashable, CustomStringConvertible {
    public let kind: ChatStateMachine.Timer
    public let generation: UInt64

    init(_ kind: ChatStateMachine.Timer, _ generation: UInt64) {
        self.kind = kind
        self.generation = generation
    }

    public var description: String { "\(self.kind)#\(self.generation)" }
}

/// The timers the machine has armed, so it can tell a live timer from a stale one.
struct ChatTimerTable: Sendable {
    private var armed: [ChatStateMachine.Timer: ChatTimerID] = [:]
    private var generation: UInt64 = 0

    /// Arms `kind` (replacing an earlier arming, which then counts as stale).
    mutating func arm(_ kind: ChatStateMachine.Timer) -> ChatTimerID {
        self.generation += 1
        let id = ChatTimerID(kind, self.generation)
        self.armed[kind] = id
        return id
    }

    /// Disarms the timer if armed and returns its id, for a cancel action.
    mutating func disarm(_ kind: ChatStateMachine.Timer) -> ChatTimerID? {
        self.armed.removeValue(forKey: kind)
    }

    /// Whether `id` is the live arming of its kind; if so it is consumed.
    mutating func fire(_ id: ChatTimerID) -> Bool {
        guard self.armed[id.kind] == id else { return false }
        self.armed[id.kind] = nil
        return true
    }

    func isArmed(_ kind: ChatStateMachine.Timer) -> Bool { self.armed[kind] != nil }
}
