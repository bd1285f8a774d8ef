import AttendantPluginAPI

/// The echo agent's script (`echo-agent = true`): what it answers to a message of the person, as a pure
/// function of that message. Each answer shows one of the things a contact centre's agent or bot sends,
/// so the whole path of the daemon can be tried without a server:
///
/// - a file: "Got NAME (N bytes)";
/// - `menu`: quick replies to choose from (Billing, Orders, Other) and a rich link;
/// - `file`: a small text file to save;
/// - `idle`: the contact centre's "are you still there?" prompt (see ``idlePrompt``);
/// - anything else: "Echo: " and the text.
enum LoopbackAgent {
    /// What the agent sends: the message's kind, text and choices, and the file that comes with it.
    struct Answer: Sendable, Hashable {
        var kind = ChatMessage.Kind.message
        var text: String
        var choices: [ChatChoice] = []
        var file: ChatFile?
    }

    /// The choice of ``idlePrompt`` that ends the chat.
    static let endChat = "end-chat"

    static func answer(to message: ChatMessage) -> Answer {
        if let attachment = message.attachments.first {
            return Answer(text: "Got \(attachment.name) (\(attachment.size ?? 0) bytes)")
        }
        switch message.text.lowercased().split(separator: " ").joined(separator: " ") {
        case "menu": return Self.menu
        case "file": return Answer(text: "Here is the file you asked for.", file: Self.sampleFile)
        case "idle": return Self.idlePrompt
        default: return Answer(text: "Echo: \(message.text)")
        }
    }

    /// Quick replies, and a link choice that opens a page instead of answering (a rich link).
    static let menu = Answer(
        text: "What can I help you with?",
        choices: [
            ChatChoice(id: "billing", label: "Billing"), ChatChoice(id: "orders", label: "Orders"),
            ChatChoice(id: "other", label: "Other"),
            ChatChoice(id: "help-centre", label: "Help centre", url: "https://help.example.org/loopback"),
        ]
    )

    static let sampleFile = ChatFile(
        name: "loopback-notes.txt",
        mimeType: "text/plain",
        bytes: Array("Notes from the Loopback agent.\nThis file came with a chat message.\n".utf8)
    )

    /// The inactivity prompt a contact centre sends before it closes an idle chat (GMS v2's IdleAlert,
    /// CXone's inactivity popup): "I'm here" keeps the chat, ``endChat`` closes it.
    static let idlePrompt = Answer(
        kind: .idleAlert,
        text: "Are you still there? The chat closes soon.",
        choices: [ChatChoice(id: "still-here", label: "I'm here"), ChatChoice(id: Self.endChat, label: "End the chat")]
    )
}
