#if canImport(AttendantPluginKit)
package import AttendantPluginAPI
#endif

/// KARTE's `response_timestamp`: `yyyy-MM-dd'T'HH:mm:ss.SSSZ` as the SDKs' format string says, which the
/// server writes as `2019-11-24T02:05:12.616Z`.
///
/// Accepted (a decision: the format string and the recorded value disagree on the zone, karte.md §2):
/// seconds with or without a fraction of 1 to 9 digits, then `Z`, `±HH:MM`, `±HHMM` or `±HH`. Anything else
/// is nil, and a `message_open` with an unreadable timestamp is kept, as both SDKs do on a parse failure.
package enum KarteTimestamp {
    package static func parse(_ text: String) -> UnixTime? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.take("-"), let month = reader.digits(2), reader.take("-"),
            let day = reader.digits(2), reader.take("T"), let hour = reader.digits(2), reader.take(":"),
            let minute = reader.digits(2), reader.take(":"), let second = reader.digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if reader.take(".") {
            var numerator = 0
            var denominator = 1
            while denominator <= 1_000_000_000, let digit = reader.digit() {
                numerator = numerator * 10 + digit
                denominator *= 10
            }
            guard denominator > 1, denominator <= 1_000_000_000 else { return nil }
            fraction = Double(numerator) / Double(denominator)
        }
        var offsetSeconds = 0
        if reader.take("Z") {
            offsetSeconds = 0
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2), hours < 24 else { return nil }
            var minutes = 0
            if reader.atEnd {
                minutes = 0
            } else {
                _ = reader.take(":")
                guard let value = reader.digits(2), value < 60 else { return nil }
                minutes = value
            }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        return UnixTime(secondsSince1970: seconds)
    }

    /// Howard Hinnant's days-from-civil (proleptic Gregorian calendar).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { self.index == self.bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: character) else { return false }
            self.index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard self.index < self.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self.bytes[self.index]) else { return nil }
            defer { self.index += 1 }
            return Int(self.bytes[self.index] - UInt8(ascii: "0"))
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = self.digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int? {
            if self.take("+") { return 1 }
            if self.take("-") { return -1 }
            return nil
        }
    }
}
