package import FoundationEssentials

/// The ISO-8601 timestamps CXone sends, read by hand: the services mix variants, and a date formatter
/// would cost more than the rest of a frame's decoding.
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS`, optionally `.` and 1-9 fractional digits, then `Z`, `±HH:MM`, `±HHMM`,
/// `±HH`, or nothing (read as UTC). `t`, `z` and a space for `T` are accepted too. Written: UTC with
/// milliseconds, `2024-05-01T12:00:00.123Z`, the form the SDK sends.
package enum CXoneTimestamp {
    /// The date `text` names, or `nil` when it is not one of the accepted forms or names no real time.
    package static func parse(_ text: String) -> Date? {
        var bytes = text.utf8.makeIterator()
        var scanner = Scanner(next: { bytes.next() })
        return scanner.timestamp()
    }

    /// `date` as UTC with milliseconds; years outside 0...9999 are clamped into that range (a date that is
    /// not a number at all is written as the epoch).
    package static func format(_ date: Date) -> String {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let bounded = totalMilliseconds.isNaN ? 0 : min(max(totalMilliseconds, -62_167_219_200_000), 253_402_300_799_999)
        let milliseconds = Int64(bounded)
        var seconds = milliseconds / 1000
        var fraction = milliseconds % 1000
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = self.civil(fromDays: days)
        return Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T"
            + Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":"
            + Self.pad(secondOfDay % 60, 2) + "." + Self.pad(fraction, 3) + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``days(year:month:day:)``.
    static func civil(fromDays value: Int64) -> (Int64, Int64, Int64) {
        let z = value + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private struct Scanner {
        var next: () -> UInt8?
        var peeked: UInt8??

        init(next: @escaping () -> UInt8?) { self.next = next }

        mutating func peek() -> UInt8? {
            if let peeked { return peeked }
            let byte = self.next()
            self.peeked = .some(byte)
            return byte
        }

        mutating func take() -> UInt8? {
            let byte = self.peek()
            self.peeked = nil
            return byte
        }

        mutating func expect(_ allowed: UInt8...) -> Bool {
            guard let byte = self.take(), allowed.contains(byte) else { return false }
            return true
        }

        mutating func number(digits: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<digits {
                guard let byte = self.take(), byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }

        mutating func timestamp() -> Date? {
            guard let year = self.number(digits: 4), self.expect(0x2D),
                let month = self.number(digits: 2), self.expect(0x2D),
                let day = self.number(digits: 2), self.expect(0x54, 0x74, 0x20),
                let hour = self.number(digits: 2), self.expect(0x3A),
                let minute = self.number(digits: 2), self.expect(0x3A),
                let second = self.number(digits: 2)
            else { return nil }
            guard (1...12).contains(month), day >= 1, day <= CXoneTimestamp.daysInMonth(year: year, month: month),
                hour <= 23, minute <= 59, second <= 60
            else { return nil }
            // Fraction: up to nine digits count, the rest of a long fraction is ignored.
            var nanoseconds: Int64 = 0
            if self.peek() == 0x2E || self.peek() == 0x2C {
                _ = self.take()
                var count = 0
                var scale: Int64 = 100_000_000
                while let byte = self.peek(), byte >= 0x30, byte <= 0x39 {
                    _ = self.take()
                    if count < 9 {
                        nanoseconds += Int64(byte - 0x30) * scale
                        scale /= 10
                    }
                    count += 1
                    if count > 32 { return nil }
                }
                guard count > 0 else { return nil }
            }
            var offsetSeconds: Int64 = 0
            switch self.take() {
            case nil:
                break
            case 0x5A, 0x7A:
                guard self.take() == nil else { return nil }
            case let sign? where sign == 0x2B || sign == 0x2D:
                guard let offsetHour = self.number(digits: 2), offsetHour <= 23 else { return nil }
                var offsetMinute: Int64 = 0
                if self.peek() == 0x3A { _ = self.take() }
                if self.peek() != nil {
                    guard let minutes = self.number(digits: 2), minutes <= 59 else { return nil }
                    offsetMinute = minutes
                }
                guard self.take() == nil else { return nil }
                offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (sign == 0x2D ? -1 : 1)
            default:
                return nil
            }
            let days = CXoneTimestamp.days(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
            // Milliseconds are the wire's precision; computing from them keeps a parse of a formatted date equal.
            if nanoseconds % 1_000_000 == 0 {
                return Date(timeIntervalSince1970: Double(seconds * 1000 + nanoseconds / 1_000_000) / 1000)
            }
            return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
        }
    }
}
