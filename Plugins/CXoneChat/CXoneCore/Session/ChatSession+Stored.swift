package import AttendantPluginAPI

// The session from what the channel keeps across restarts (``ChatStorage`` says where): the channel reads
// the store, the outbox and the secrets, and this makes the session of it and says what the log should.
extension ChatSession {
    /// What the channel read at start.
    package struct Stored: Sendable {
        /// The channel store's values.
        package var values: [String: String]
        /// The outbox's entries, oldest first, and the store ids of those that could not be read (dropped).
        package var outbox: [ChatStorage.OutboxRecord]
        package var unreadable: [Int64]
        /// The access token's secret, or why it could not be read.
        package var secret: Result<String?, any Error>

        package init(values: [String: String], outbox: [ChatStorage.OutboxRecord], unreadable: [Int64], secret: Result<String?, any Error>) {
            self.values = values
            self.outbox = outbox
            self.unreadable = unreadable
            self.secret = secret
        }
    }

    /// The session of what was `stored`, with the log lines it calls for: an outbox entry dropped, a
    /// token that could not be read (the customer is authorized afresh), messages waiting from before.
    package static func loaded(
        _ stored: Stored,
        configuration: ChatStateMachine.Configuration,
        settings: Settings
    ) -> (session: ChatSession, log: [(level: Logger.Level, message: String)]) {
        var log: [(level: Logger.Level, message: String)] = stored.unreadable.map {
            (.warning, "\(Self.prefix): dropped an outbox entry that cannot be read (id \($0))")
        }
        var (values, contacts) = ChatStorage.read(stored.values)
        values.outbox = stored.outbox.map(\.entry)
        switch stored.secret {
        case .success(let text):
            values.accessToken = text.flatMap(ChatStorage.accessToken(fromSecret:))
        case .failure(let error):
            log.append((.warning, "\(Self.prefix): cannot read the stored access token (\(error)); the customer is authorized afresh"))
        }
        if !values.outbox.isEmpty {
            log.append((.info, "\(Self.prefix): \(values.outbox.count) message(s) wait in the outbox from before; they go out once connected"))
        }
        let machine = ChatStateMachine(stored: values, configuration: configuration)
        return (ChatSession(machine: machine, contacts: contacts, settings: settings), log)
    }
}
