/// A snapshot of one chat as the server holds it.
package struct GMSChatSnapshot: Sendable, Hashable {
    /// `chatId` (v2) or `chatSessionId` (v1).
    package var id: String
    package var version: GMSChatVersion
    /// The v2 service name, or the v1 service id (`180-<uuid>`).
    package var service: String
    package var secureKey: String
    package var userID: String
    /// The customer's nickname (v1: first and last name).
    package var nickname: String
    /// v1: the `gms_user` the chat was created with.
    package var gmsUser: String?
    /// False from a `/meta/disconnect` with `ext.transcriptPosition` until the customer comes back.
    package var isOnline: Bool
    /// The position the customer said it had when it went away.
    package var awayPosition: Int?
    package var isEnded: Bool
    /// Every transcript event, oldest first (what the customer sees; the agent's notices are apart).
    package var rows: [GMSTranscriptRow]
    /// The agent-side log: notices only the agent sees ("customer is not online").
    package var agentNotices: [String]
    /// v2: the `userData` requestChat carried (string values).
    package var userData: [String: String] = [:]

    /// The texts of the customer's messages, oldest first.
    package var customerMessages: [String] {
        self.rows.filter { $0.party == .client && $0.kind == .message }.map(\.text)
    }
}
