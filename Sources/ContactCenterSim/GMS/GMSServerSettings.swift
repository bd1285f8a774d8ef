/// How the simulator's GMS chat server behaves: its chat service, the scripted agent, and the CometD
/// timings that decide when a client is held, answered and forgotten.
package struct GMSServerSettings: Sendable {
    /// The chat service section name: the v2 channel is `/service/chatV2/<serviceName>`. Any other
    /// service name is served too; this one is what the simulator announces.
    package var serviceName: String = "customer-support"
    /// The scripted agent's nickname in every transcript row it writes.
    package var agentNickname: String = "Ada Lovelace"
    /// What the agent says once it has joined a new chat; nil: it joins and says nothing.
    package var greeting: String? = "Hello, this is Ada. How can I help you?"
    /// How long after the chat starts the agent joins (and greets).
    package var greetingDelay: Duration = .milliseconds(500)
    /// When on, the agent answers each customer message (``autoReplyDelay`` later) with "You said: TEXT".
    package var autoReply: Bool = false
    package var autoReplyDelay: Duration = .milliseconds(200)
    /// How long a `/meta/connect` is held when no event comes (Bayeux `advice.timeout`; CometD's 30 s).
    package var connectHold: Duration = .seconds(30)
    /// How long after a long-poll ends the server waits for the next `/meta/connect` before it destroys
    /// the client (CometD's `maxInterval`, GMS's "10-second timer"). The client's chats stay.
    package var clientWindow: Duration = .seconds(10)
    /// The `Notice.Custom` text the agent sees when a `/meta/disconnect` carries `ext.transcriptPosition`.
    package var notOnlineNotice: String = "customer is not online"
    /// Off, WebSocket upgrades on the CometD path are refused (as behind a proxy that does not pass them)
    /// and the handshake offers long-polling only.
    package var webSocket: Bool = true
    /// What `fileGetLimits` answers: the file name extensions taken (`upload-file-types`), the largest
    /// file (`upload-max-file-size`), how many files and bytes a chat may upload.
    package var uploadFileTypes: [String] = ["jpeg", "jpg", "pdf", "png", "txt", "zip"]
    package var uploadMaxFileSize: Int = 1 << 20
    package var uploadMaxFiles: Int = 5
    package var uploadMaxTotalSize: Int = 5 << 20

    package init(
        serviceName: String = "customer-support",
        agentNickname: String = "Ada Lovelace",
        greeting: String? = "Hello, this is Ada. How can I help you?",
        greetingDelay: Duration = .milliseconds(500),
        autoReply: Bool = false,
        connectHold: Duration = .seconds(30),
        clientWindow: Duration = .seconds(10)
    ) {
        self.serviceName = serviceName
        self.agentNickname = agentNickname
        self.greeting = greeting
        self.greetingDelay = greetingDelay
        self.autoReply = autoReply
        self.connectHold = connectHold
        self.clientWindow = clientWindow
    }
}
