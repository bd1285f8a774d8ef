import Glibc

/// CLOCK_MONOTONIC now, as a duration since boot: the same clock on every thread.
func monotonicNow() -> Duration {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
}

/// One figure over many calls, printed as NotifyLatency prints its own.
struct Figure {
    let title: String
    private(set) var samples: [Duration] = []

    init(_ title: String, capacity: Int) {
        self.title = title
        self.samples.reserveCapacity(capacity)
    }

    mutating func add(_ sample: Duration) { self.samples.append(sample) }

    /// `title, N calls:` and a line with median, p90, p99 and max in milliseconds.
    func report(warmUp: Int) -> String {
        let sorted = self.samples.sorted()
        guard let last = sorted.last else { return "\(self.title): no samples" }
        func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }
        func percentile(_ p: Double) -> Double { milliseconds(sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]) }
        func format(_ value: Double) -> String { "\(Double(Int((value * 1000).rounded())) / 1000) ms" }
        return """
            \(self.title), \(sorted.count) calls (after \(warmUp) warm-up):
              median \(format(percentile(0.5)))   p90 \(format(percentile(0.9)))   p99 \(format(percentile(0.99)))   max \(format(milliseconds(last)))
            """
    }
}
