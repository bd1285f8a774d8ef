/// One chat as the GMS server holds it, v1 or v2.
struct GMSChatRecord {
    let id: String
    let version: GMSChatVersion
    /// v2: the service name of the channel it was requested on; v1: the service id.
    let service: String
    let secureKey: String
    let userID: String
    let alias: String
    var nickname: String
    /// v1: the `gms_user` that ties the chat to CometD clients.
    var gmsUser: String?
    /// v2: the client that gets the chat's live events (requestChat, then requestNotifications).
    var boundClient: String?
    var isOnline = true
    var awayPosition: Int?
    var isEnded = false
    var agentJoined = false
    var agentLeft = false
    var rows: [GMSTranscriptRow] = []
    /// Notices only the agent sees; never in ``rows``.
    var agentNotices: [String] = []
    /// v2: requestChat's `userData` (string values), which the contact centre's routing reads.
    var userData: [String: String] = [:]
    /// Milliseconds since 1970.
    let startedAt: Int
    /// v1: how far REST replies have shown the transcript (a reply shows the rows after it).
    var restCursor = 0

    /// The index the next row gets; v2's `nextPosition`.
    var nextPosition: Int { self.rows.count + 1 }

    var snapshot: GMSChatSnapshot {
        GMSChatSnapshot(
            id: self.id,
            version: self.version,
            service: self.service,
            secureKey: self.secureKey,
            userID: self.userID,
            nickname: self.nickname,
            gmsUser: self.gmsUser,
            isOnline: self.isOnline,
            awayPosition: self.awayPosition,
            isEnded: self.isEnded,
            rows: self.rows,
            agentNotices: self.agentNotices,
            userData: self.userData
        )
    }
}
