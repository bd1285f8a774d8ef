// The delayed work of one clock, earliest deadline first: jobs from `Task.sleep`, and the cancellable
// actions of `IdleClock`. Equal deadlines run in the order they were scheduled (the sequence number), as a
// FIFO would. Work with a tolerance may also run early, down to `deadline - tolerance`, whenever the loop
// is awake anyway (as systemd's AccuracySec= coalesces timers): two timers minutes apart then cost one
// wake-up, whose memory is cold after a long idle, instead of two.
@_spi(ExperimentalCustomExecutors) import _Concurrency

struct TimerHeap {
    enum Work {
        /// A job `Task.sleep` handed to the executor; it cannot be taken back.
        case job(UnownedJob)
        /// An `IdleClock` sleep's wake-up, removed again when the sleep is cancelled.
        case action(@Sendable () -> Void)
    }

    struct Entry {
        var deadline: Int64  // nanoseconds on the heap's clock
        var sequence: UInt64
        var work: Work
        /// The earliest the work may run when the loop is awake anyway (`deadline - tolerance`).
        var earliest: Int64

        init(deadline: Int64, sequence: UInt64, work: Work, tolerance: Int64 = 0) {
            self.deadline = deadline
            self.sequence = sequence
            self.work = work
            self.earliest = deadline - max(0, tolerance)
        }

        func precedes(_ other: Entry) -> Bool {
            self.deadline < other.deadline || (self.deadline == other.deadline && self.sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    /// No entry may run early before this (`Int64.max`: none has a tolerance). It may be lower than the
    /// truth after a removal; the next scan puts it right. So the loop looks for early work only when some
    /// may be there, not on every turn.
    private var earliestEarly = Int64.max

    var isEmpty: Bool { self.entries.isEmpty }

    var count: Int { self.entries.count }

    var earliestDeadline: Int64? { self.entries.first?.deadline }

    mutating func push(_ entry: Entry) {
        if entry.earliest < entry.deadline { self.earliestEarly = min(self.earliestEarly, entry.earliest) }
        self.entries.append(entry)
        self.siftUp(from: self.entries.count - 1)
    }

    /// Removes and hands over all work whose deadline is at or before `now`, earliest first, then (the
    /// loop being awake) the work whose tolerance reaches back to `now`, in deadline order.
    mutating func popExpired(now: Int64, into work: inout [Work]) {
        while let first = self.entries.first, first.deadline <= now {
            work.append(first.work)
            self.remove(at: 0)
        }
        guard now >= self.earliestEarly else { return }
        // A linear scan: the heap holds a handful of timers, and only some have a tolerance.
        let early = self.entries.filter { $0.earliest <= now }.sorted { $0.precedes($1) }
        for entry in early {
            work.append(entry.work)
            _ = self.remove(sequence: entry.sequence)
        }
        self.earliestEarly = self.entries.lazy.filter { $0.earliest < $0.deadline }.map(\.earliest).min() ?? .max
    }

    /// Removes the entry scheduled as `sequence`; false when it is not here (it ran, or was removed).
    mutating func remove(sequence: UInt64) -> Bool {
        // A linear search: the heap holds a handful of timers per channel, and a cancellation is rare
        // next to the wake-up it saves.
        guard let index = self.entries.firstIndex(where: { $0.sequence == sequence }) else { return false }
        self.remove(at: index)
        return true
    }

    private mutating func remove(at index: Int) {
        let last = self.entries.removeLast()
        guard index < self.entries.count else { return }
        self.entries[index] = last
        self.siftDown(from: index)
        self.siftUp(from: index)
    }

    private mutating func siftUp(from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.entries[child].precedes(self.entries[parent]) else { return }
            self.entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < self.entries.count && self.entries[left].precedes(self.entries[first]) { first = left }
            if right < self.entries.count && self.entries[right].precedes(self.entries[first]) { first = right }
            if first == parent { return }
            self.entries.swapAt(parent, first)
            parent = first
        }
    }
}
