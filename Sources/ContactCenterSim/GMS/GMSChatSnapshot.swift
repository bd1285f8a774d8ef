/// A snapshot of one chat as the server holds it.
public struct GMSChatSnapshot: Sendable, Hashable {
    /// `chatId` (v2) or `chatSessionId` (v1).
    public var id: String
    public var version: GMSChatVersion
    /// The v2 service name, or the v1 service id (`180-<uuid>`).
    public var service: String
    public var secureKey: String
    public var userID: String
    /// The customer's nickname (v1: first and last name).
    public var nickname: String
    /// v1: the `gms_user` the chat was created with.
    public var gmsUser: String?
    /// False from a `/meta/disconnect` with `ext.transcriptPosition` until the customer comes back.
    public var isOnline: Bool
    /// The position the customer said it had when it went away.
    public var awayPosition: Int?
    public var isEnded: Bool
    /// Every transcript event, oldest first (what the customer sees; the agent's notices are apart).
    public var rows: [GMSTranscriptRow]
    /// The agent-side log: notices only the agent sees ("customer is not online").
    public var agentNotices: [String]

    /// The texts of the customer's messages, oldest first.
    public var customerMessages: [String] {
        self.rows.filter { $0.party == .client && $0.kind == .message }.map(\.text)
    }
}
