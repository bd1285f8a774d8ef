/// Durations for people: "45 s", "14 min", "2 h 5 min", "3 d 4 h"; "in 14 min", "3 min ago".
///
/// Each unit is rounded down, so "in 14 min" never promises more time than is left.
public enum RelativeTime {
    /// `seconds` (not negative) in the largest two units that matter.
    public static func duration(_ seconds: Int64) -> String {
        let s = max(seconds, 0)
        switch s {
        case ..<60: return "\(s) s"
        case ..<3600: return "\(s / 60) min"
        case ..<86400:
            let minutes = s % 3600 / 60
            return minutes == 0 ? "\(s / 3600) h" : "\(s / 3600) h \(minutes) min"
        default:
            let hours = s % 86400 / 3600
            return hours == 0 ? "\(s / 86400) d" : "\(s / 86400) d \(hours) h"
        }
    }

    /// "in 14 min" for a time `seconds` from now.
    public static func from(_ seconds: Int64) -> String { "in " + self.duration(seconds) }

    /// "3 min ago" for a time `seconds` before now; "just now" for 0.
    public static func ago(_ seconds: Int64) -> String { seconds <= 0 ? "just now" : self.duration(seconds) + " ago" }

    /// "in 14 min" or "3 min ago", by the sign of `offset`.
    public static func relative(_ offset: Int64) -> String { offset > 0 ? self.from(offset) : self.ago(-offset) }
}
