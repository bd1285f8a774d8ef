/// What the gateway's messages carry that the host never sees, kept by the session for the user's
/// answers and downloads: per message, what each of its choices sends (the button's text and postback) and
/// where each of its attachments is (a URL that may be pre-signed: a credential, never shown or logged
/// with its query).
///
/// Messages are kept by id (lower-cased), the latest ``limit`` of them: a choice or a file of an older
/// message is gone, as the thread's older messages are from ``ChatThread/lastMessages``.
package struct ChatMessageExtras: Sendable {
    /// What choosing one of a message's choices sends.
    package struct Choice: Sendable, Hashable {
        /// The chosen button's text, the message's text.
        package var text: String
        /// The postback and its kind; nil for a button without a postback (a plain message).
        package var answer: ChatStateMachine.Answer?
        /// A link the choice opens (a rich link): nothing is sent.
        package var url: String?

        package init(text: String, answer: ChatStateMachine.Answer? = nil, url: String? = nil) {
            self.text = text
            self.answer = answer
            self.url = url
        }
    }

    /// One file of a message: where it is, its name and type (the same as a file a message of ours carries).
    package typealias File = ChatStateMachine.SentFile

    /// One message's extras.
    package struct Message: Sendable, Hashable {
        package var threadID: String
        /// By choice id.
        package var choices: [String: Choice]
        /// By attachment id.
        package var files: [String: File]

        package init(threadID: String, choices: [String: Choice] = [:], files: [String: File] = [:]) {
            self.threadID = threadID
            self.choices = choices
            self.files = files
        }

        var isEmpty: Bool { self.choices.isEmpty && self.files.isEmpty }
    }

    /// How many messages are kept.
    package var limit: Int
    private var messages: [String: Message] = [:]
    /// Message keys, oldest noted first.
    private var order: [String] = []

    package init(limit: Int = 500) {
        self.limit = max(1, limit)
    }

    /// Keeps what `messageID` carries (nothing for a message without choices or files).
    package mutating func note(_ messageID: String, _ message: Message) {
        guard !message.isEmpty else { return }
        let key = messageID.lowercased()
        if self.messages.updateValue(message, forKey: key) == nil { self.order.append(key) }
        while self.order.count > self.limit {
            self.messages[self.order.removeFirst()] = nil
        }
    }

    /// A message's extras, if kept.
    package func message(_ messageID: String) -> Message? {
        self.messages[messageID.lowercased()]
    }

    /// The number of messages kept.
    package var count: Int { self.messages.count }
}
