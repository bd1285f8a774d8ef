#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// The deployment's configuration, `GET https://api-cdn.{domain}/webdeployments/v1/deployments/{id}/config.json`
/// (SDK `shyrka/receive/DeploymentConfig.kt`, `WebMessagingApi.fetchDeploymentConfig`).
///
/// Read are the members a daemon acts on; the SDK also requires `version`, `languages`,
/// `defaultLanguage`, `apiEndpoint`, `messenger.styles`, `messenger.launcherButton` and `journeyEvents`,
/// which describe a web page's launcher: they are not required here (decided; README "Wire facts").
package struct GenesysDeploymentConfig: Sendable, Hashable {
    /// `messenger.apps.conversations` (SDK `Conversations`, every member but the endpoint defaulted).
    package struct Conversations: Sendable, Hashable {
        package enum DisconnectType: String, Sendable, Hashable {
            /// After `ConversationDisconnect` the conversation is read-only.
            case readOnly = "ReadOnly"
            /// The customer may still send, which starts a new conversation (the SDK's default).
            case send = "Send"
        }

        package var messagingEndpoint: String
        package var showAgentTypingIndicator = false
        /// Our typing notices are sent only when this is on (SDK `UserTypingProvider`).
        package var showUserTypingIndicator = false
        /// Send autostart (presence Join) after a new session.
        package var autoStart = false
        package var conversationDisconnectEnabled = false
        package var conversationDisconnectType = DisconnectType.send
        package var conversationClearEnabled = false
        package var notificationsEnabled = false
        package var markdownEnabled = false
    }

    /// `messenger.fileUpload` (SDK `FileUpload`, deprecated there for the session's `allowedMedia`).
    package struct FileUpload: Sendable, Hashable {
        package struct Mode: Sendable, Hashable {
            package var fileTypes: [String]
            package var maxFileSizeKB: Int

            package init(fileTypes: [String], maxFileSizeKB: Int) {
                self.fileTypes = fileTypes
                self.maxFileSizeKB = maxFileSizeKB
            }
        }

        /// When present (either value), the session's `allowedMedia` decides the file profile instead
        /// (SDK `createFileAttachmentProfile`).
        package var enableAttachments: Bool?
        package var modes: [Mode]

        package init(enableAttachments: Bool?, modes: [Mode]) {
            self.enableAttachments = enableAttachments
            self.modes = modes
        }
    }

    package var id: String
    package var messengerEnabled: Bool
    package var conversations: Conversations
    package var fileUpload: FileUpload?
    /// `status`: "Active" or "Inactive".
    package var active: Bool
    package var authEnabled: Bool
    package var allowSessionUpgrade: Bool

    package init(decoding bytes: some Collection<UInt8>, limits: GenesysWireLimits = .deploymentConfig) throws(GenesysWireError) {
        let fields = try GenesysFields(limits.parse(bytes, what: "deployment configuration"), path: "")
        let messenger = try fields.object("messenger")
        let apps = try messenger.object("apps")
        let conversation = try apps.object("conversations")
        var conversations = Conversations(messagingEndpoint: try conversation.string("messagingEndpoint"))
        conversations.showAgentTypingIndicator = try conversation.optionalBool("showAgentTypingIndicator") ?? false
        conversations.showUserTypingIndicator = try conversation.optionalBool("showUserTypingIndicator") ?? false
        conversations.autoStart = try conversation.optionalObject("autoStart")?.optionalBool("enabled") ?? false
        if let disconnect = try conversation.optionalObject("conversationDisconnect") {
            conversations.conversationDisconnectEnabled = try disconnect.optionalBool("enabled") ?? false
            if let type = try disconnect.optionalString("type") {
                guard let known = Conversations.DisconnectType(rawValue: type) else {
                    throw .bad(disconnect.path("type"), "is neither ReadOnly nor Send")
                }
                conversations.conversationDisconnectType = known
            }
        }
        conversations.conversationClearEnabled = try conversation.optionalObject("conversationClear")?.optionalBool("enabled") ?? false
        conversations.notificationsEnabled = try conversation.optionalObject("notifications")?.optionalBool("enabled") ?? false
        conversations.markdownEnabled = try conversation.optionalObject("markdown")?.optionalBool("enabled") ?? false

        var fileUpload: FileUpload?
        if let upload = try messenger.optionalObject("fileUpload") {
            var modes: [FileUpload.Mode] = []
            for (value, path) in try upload.array("modes") {
                let mode = try GenesysFields(value, path: path)
                modes.append(FileUpload.Mode(fileTypes: try mode.strings("fileTypes"), maxFileSizeKB: try mode.integer("maxFileSizeKB")))
            }
            fileUpload = FileUpload(enableAttachments: try upload.optionalBool("enableAttachments"), modes: modes)
        }

        let status = try fields.string("status")
        guard status == "Active" || status == "Inactive" else { throw .bad("status", "is neither Active nor Inactive") }
        let auth = try fields.optionalObject("auth")
        self.id = try fields.string("id")
        self.messengerEnabled = try messenger.optionalBool("enabled") ?? false
        self.conversations = conversations
        self.fileUpload = fileUpload
        self.active = status == "Active"
        self.authEnabled = try auth?.bool("enabled") ?? false
        self.allowSessionUpgrade = try auth?.optionalBool("allowSessionUpgrade") ?? false
    }
}
