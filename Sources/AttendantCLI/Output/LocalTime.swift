import Glibc

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` in the local time zone (`TZ`, else /etc/localtime).
public enum LocalTime {
    private static let zoneSet: Bool = {
        tzset()
        return true
    }()

    public static func format(_ unixSeconds: Int64, utc: Bool = false) -> String {
        _ = Self.zoneSet
        var time = time_t(unixSeconds)
        var parts = tm()
        let converted = utc ? gmtime_r(&time, &parts) : localtime_r(&time, &parts)
        guard converted != nil else { return String(unixSeconds) }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Now, in Unix seconds.
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}
