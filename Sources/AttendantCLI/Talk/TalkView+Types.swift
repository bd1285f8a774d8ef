import AttendantControl

// The values the conversation view takes and gives.
extension TalkView {
    struct Size: Sendable, Hashable {
        var rows: Int
        var columns: Int
    }

    /// What the session does for the view.
    enum Action: Sendable, Hashable {
        /// Send the text to the thread (nil: the channel's current thread).
        case send(String, thread: String?)
        /// Tell the agent the person started or stopped typing.
        case typing(started: Bool, thread: String?)
        /// Leave: restore the terminal and exit.
        case quit
        /// Answer a message with one of its choices; its label shows as ours until the channel answers.
        case choose(message: String, choice: String, label: String, thread: String?)
        /// Tell the channel the person has seen the thread up to this message.
        case markRead(message: String, thread: String?)
        /// Ask the channel for the page of messages before those loaded.
        case loadOlder(thread: String?)
        /// Save a file that came with a message into the download folder.
        case save(message: String, attachment: ChatAttachmentRecord, thread: String?)
        /// Send the file at the path (as typed: `~/` is the home folder).
        case sendFile(path: String, thread: String?)
    }

    /// How much of the thread's history is loaded.
    enum History: Sendable, Hashable {
        /// Older messages may come: PgUp at the top asks for them.
        case more
        /// A page was asked for.
        case loading
        /// No more come (the start of the conversation, or a channel that cannot load them): why.
        case complete(String)
    }

    /// The screen: one string per row (plain text with SGR styles, never wider than the terminal) and
    /// where the cursor goes (0-based).
    struct Frame: Sendable, Hashable {
        var rows: [String]
        var cursorRow: Int
        var cursorColumn: Int
    }
}
