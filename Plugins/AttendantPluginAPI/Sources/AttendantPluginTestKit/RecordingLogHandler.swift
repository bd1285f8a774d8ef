public import AttendantPluginAPI
import Synchronization

/// The log messages a test collected.
public final class LogRecords: Sendable {
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    private let records = Mutex<[Record]>([])

    public init() {}

    public var all: [Record] { self.records.withLock { $0 } }

    /// Every message and metadata value as one text, for "this secret never appears" checks.
    public var text: String {
        self.all.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n")
    }

    func append(_ record: Record) { self.records.withLock { $0.append(record) } }
}

/// A swift-log handler that keeps messages in ``LogRecords``.
public struct RecordingLogHandler: LogHandler {
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    let records: LogRecords

    public init(records: LogRecords) { self.records = records }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        self.records.append(.init(level: event.level, message: event.message.description, metadata: merged))
    }
}
