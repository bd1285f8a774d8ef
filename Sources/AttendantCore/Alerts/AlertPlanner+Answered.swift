import AttendantPluginAPI

// A choice answered elsewhere than on the notification (`attendantctl chat choose`, the conversation view).

extension AlertPlanner {
    /// The person answered message `messageID` of `channel` with one of its choices: they have seen its
    /// thread, as when they write in it, so the thread's notification goes. This is said apart from the
    /// messages because some answers never come back as one: the CXone SDK keeps the answer to its
    /// inactivity popup out of the thread (`isInactivityPopupAnswer`), and that popup's notification is
    /// urgent, shown until closed.
    package mutating func answered(messageID: String, channel: String) -> [AlertCommand] {
        let keys = self.threads.compactMap { key, record -> AlertKey? in
            guard key.channel == channel, record.transcript.contains(where: { $0.id.lowercased() == messageID.lowercased() }) else { return nil }
            return key
        }
        return keys.flatMap { self.withdraw($0) }
    }
}
