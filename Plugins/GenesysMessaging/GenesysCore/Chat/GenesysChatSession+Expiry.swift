import AttendantPluginAPI
import AttendantPluginKit

/// When the session expires, as the service last said (SDK `core/sessionduration/SessionDurationHandler.kt`):
/// `expirationDate` (epoch seconds) and `durationSeconds` come with `SessionResponse` and with the echo's
/// answer (its metadata, as strings); any message in or out moves the expiry to now plus the duration.
struct GenesysSessionExpiry: Sendable, Hashable {
    var expirationDate: Int
    var durationSeconds: Int?
    /// The expiry whose notice was shown: one notice per expiry.
    var noticeShownFor: Int?
}

// The SDK's SessionExpirationNotice: `sessionExpirationNoticeIntervalSeconds` (300) before the expiry, an
// alert that the session is about to expire; an echo 10 s before it, to learn an expiry moved by the
// session's activity elsewhere (SessionDurationHandler).
extension GenesysChatSession {
    /// SDK `Configuration.sessionExpirationNoticeIntervalSeconds`.
    static let expiryNoticeSeconds = 300
    /// SDK `SessionDurationHandler`: the echo goes 10 s before the notice is due.
    static let expiryEchoLeadSeconds = 10

    /// The service said when the session expires: the notice's timers are set for it.
    mutating func expires(at date: Int?, duration: Int?, now: UnixTime) -> [Action] {
        guard let date else { return [] }
        var expiry = self.expiry ?? GenesysSessionExpiry(expirationDate: date)
        expiry.expirationDate = date
        if let duration { expiry.durationSeconds = duration }
        self.expiry = expiry
        return self.armExpiry(now: now)
    }

    /// A message in or out: the expiry slides to now plus the duration.
    mutating func activity(now: UnixTime) -> [Action] {
        guard let duration = self.expiry?.durationSeconds else { return [] }
        self.expiry?.expirationDate = Int(now.secondsSince1970) + duration
        return self.armExpiry(now: now)
    }

    func armExpiry(now: UnixTime) -> [Action] {
        guard let expiry = self.expiry else { return [] }
        let notice = Double(expiry.expirationDate - Self.expiryNoticeSeconds) - now.secondsSince1970
        let echo = notice - Double(Self.expiryEchoLeadSeconds)
        return [
            .setTimer(.expiryEcho, after: .milliseconds(Int64(max(0, echo) * 1000))),
            .setTimer(.expiryNotice, after: .milliseconds(Int64(max(0, notice) * 1000))),
        ]
    }

    /// The echo before the notice: the service's answer carries the expiry as it is now.
    mutating func expiryEchoDue(now: UnixTime) -> [Action] {
        guard self.isConfigured || self.isReadOnly else { return [] }
        return self.machineStep(now: now) { $0.keepAlive(now: Self.instant(now)) }
    }

    /// The notice is due: unless the expiry moved meanwhile, the person hears that the session expires
    /// soon (an idle alert, which the desktop shows), once per expiry.
    mutating func expiryNoticeDue(now: UnixTime) -> [Action] {
        guard var expiry = self.expiry, let threadID = self.threadID, self.isConfigured || self.isReadOnly else { return [] }
        let left = expiry.expirationDate - Int(now.secondsSince1970)
        // Moved later by activity (the timer is set again), or already shown for this expiry.
        guard left <= Self.expiryNoticeSeconds, expiry.noticeShownFor != expiry.expirationDate else { return self.armExpiry(now: now) }
        expiry.noticeShownFor = expiry.expirationDate
        self.expiry = expiry
        let minutes = max(1, (left + 59) / 60)
        let notice = ChatMessage(
            id: "session-expiry-\(expiry.expirationDate)",
            threadID: threadID,
            kind: .idleAlert,
            direction: .notice,
            sender: Party(displayName: "Genesys", address: "service"),
            text:
                "The chat session expires in \(minutes) minute\(minutes == 1 ? "" : "s") unless you write; after that, a new session starts a new conversation.",
            sentAt: now
        )
        return [.log(.info, "\(self.prefix): the session with \(self.server) expires in \(left) s"), .emit(.messageReceived(notice))]
    }
}
