import Glibc

/// CLOCK_MONOTONIC now, in nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Samples in nanoseconds, sorted once for the order statistics.
struct Samples {
    let sorted: [UInt64]

    init(_ samples: [UInt64]) { self.sorted = samples.sorted() }

    /// The value at or below which a fraction `p` of the samples lie (p in 0...1).
    func percentile(_ p: Double) -> UInt64 {
        self.sorted[max(0, min(self.sorted.count - 1, Int((Double(self.sorted.count) * p).rounded(.up)) - 1))]
    }

    var median: UInt64 { self.percentile(0.5) }
    var minimum: UInt64 { self.sorted.first ?? 0 }
}

enum Format {
    /// `987` → `987 ns`, `1234` → `1.23 µs`, `4104780` → `4.10 ms`.
    static func nanoseconds(_ value: UInt64) -> String {
        if value < 1000 { return "\(value) ns" }
        return value < 1_000_000 ? "\(Self.decimal(Double(value) / 1000, places: 2)) µs" : Self.milliseconds(value)
    }

    static func milliseconds(_ value: UInt64) -> String { "\(Self.decimal(Double(value) / 1e6, places: 2)) ms" }

    /// `1234567` → `1 234 567` (thin groups for long counts).
    static func grouped(_ value: Int) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(" ", at: index)
            index -= 3
        }
        return String(digits)
    }

    static func bytes(_ value: Int) -> String { "\(Self.grouped(value)) B" }

    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let whole = Int((value * scale).rounded())
        let integer = whole / Int(scale)
        var fraction = String(whole % Int(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return places == 0 ? "\(integer)" : "\(integer).\(fraction)"
    }

    /// Left-aligned in `width` columns.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
