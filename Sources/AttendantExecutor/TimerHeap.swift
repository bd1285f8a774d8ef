// The delayed jobs of one clock, earliest deadline first. Equal deadlines run in the order they were
// scheduled (the sequence number), as a FIFO would.
@_spi(ExperimentalCustomExecutors) import _Concurrency

struct TimerHeap {
    struct Entry {
        var deadline: Int64  // nanoseconds on the heap's clock
        var sequence: UInt64
        var job: UnownedJob

        func precedes(_ other: Entry) -> Bool {
            self.deadline < other.deadline || (self.deadline == other.deadline && self.sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { self.entries.isEmpty }

    var earliestDeadline: Int64? { self.entries.first?.deadline }

    mutating func push(_ entry: Entry) {
        self.entries.append(entry)
        var child = self.entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.entries[child].precedes(self.entries[parent]) else { break }
            self.entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and hands over every job whose deadline is at or before `now`, earliest first.
    mutating func popExpired(now: Int64, into jobs: inout [UnownedJob]) {
        while let first = self.entries.first, first.deadline <= now {
            jobs.append(first.job)
            let last = self.entries.removeLast()
            guard !self.entries.isEmpty else { break }
            self.entries[0] = last
            self.siftDown(from: 0)
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
