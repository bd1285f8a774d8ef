public import AttendantPluginAPI
import CSystemd
import Glibc

/// Chooses where log lines go: the journal, with structured fields, when stderr is connected to it (as
/// for a systemd service: `$JOURNAL_STREAM` names stderr's device and inode); plain lines on stderr
/// otherwise.
public enum SystemdLogging {
    /// True when stderr is the journal stream systemd set up for this process.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// A handler factory for `LoggingSystem.bootstrap`.
    public static func handlerFactory(
        identifier: String,
        level: Logger.Level,
        environment: [String: String]
    ) -> @Sendable (String) -> any LogHandler {
        if self.stderrIsJournal(environment: environment) {
            return { label in
                var handler = JournalLogHandler(label: label, identifier: identifier)
                handler.logLevel = level
                return handler
            }
        }
        return { label in
            var handler = StderrLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// Writes structured journal entries with `sd_journal_sendv(3)`: `MESSAGE`, `PRIORITY`,
/// `SYSLOG_IDENTIFIER`, `CODE_FILE`/`CODE_LINE`/`CODE_FUNC`, `LOGGER`, and every metadata key as an
/// upper-case field (`channel` → `CHANNEL`, `contact` → `CONTACT`).
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public let label: String
    public let identifier: String

    public init(label: String, identifier: String) {
        self.label = label
        self.identifier = identifier
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(event.level.syslogPriority)",
            "SYSLOG_IDENTIFIER=\(self.identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
            "LOGGER=\(self.label)",
        ]
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged {
            fields.append("\(Self.fieldName(key))=\(value)")
        }
        Self.send(fields)
    }

    /// A journal field name: upper case letters, digits and `_`, not starting with `_` or a digit.
    static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
        while name.first == "_" || (name.first?.isNumber ?? false) { name.removeFirst() }
        return name.isEmpty ? "METADATA" : String(name.prefix(64))
    }

    /// Sends the fields as one entry: all of them laid out in one buffer, one `iovec` per field.
    private static func send(_ fields: [String]) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(fields.count)
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.utf8)
            ranges.append(start..<bytes.count)
        }
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            _ = sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }
}

/// Plain lines on stderr: `12:00:01.250 info  [desk] message key=value`.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        let channel = merged.removeValue(forKey: "channel").map { "[\($0)] " } ?? ""
        let rest = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let level = "\(event.level)".padding(toLength: 7)
        let line = "\(Self.timestamp()) \(level) \(channel)\(event.message)\(rest)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    private static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = Int(ts.tv_nsec / 1_000_000)
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)"
    }
}

extension Logger.Level {
    /// The syslog priority journald uses (`PRIORITY=`).
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        self.count >= length ? self : self + String(repeating: " ", count: length - self.count)
    }
}
