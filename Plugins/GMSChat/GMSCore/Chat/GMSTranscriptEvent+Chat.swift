package import AttendantPluginAPI

// How a transcript row of either API version becomes the plugin API's chat message.
extension GMSTranscriptEvent {
    /// The API's kind for this row's type: GMS's seven push-worthy types map one to one; idle alerts
    /// (v2 `IdleAlert`, `IdleClose`) are their own kind; anything else is a custom notice.
    package var kind: ChatMessage.Kind {
        switch self.type.normalized {
        case "Message.Text": .message
        case "Notice.Joined": .joined
        case "Notice.Left": .left
        case "Notice.TypingStarted": .typingStarted
        case "Notice.TypingStopped": .typingStopped
        case "Notice.PushUrl": .pushURL
        case "Notice.Custom": .custom
        case "IdleAlert", "IdleClose", "Notice.IdleAlert", "Notice.IdleClose": .idleAlert
        // A file is a message with an attachment, as the other chats show one.
        case "FileUploaded": .message
        default: .custom
        }
    }

    /// The customer's own rows (GMS echoes them) go to the agent; an agent's text comes from the agent;
    /// everything else is a notice.
    package var direction: ChatMessage.Direction {
        if self.party.isClient { return .toAgent }
        return self.kind == .message ? .fromAgent : .notice
    }

    /// The row as a chat message of `threadID`. Its id is the thread and the position, so a row replayed
    /// after a new session has the id it had the first time.
    package func chatMessage(threadID: String, receivedAt: UnixTime) -> ChatMessage {
        let sentAt = self.utcMilliseconds.map { UnixTime(secondsSince1970: Double($0) / 1000) } ?? receivedAt
        let name = self.party.nickname.isEmpty ? (self.party.isClient ? "You" : "Agent") : self.party.nickname
        var message = ChatMessage(
            id: "\(threadID)#\(self.position)",
            threadID: threadID,
            kind: self.kind,
            direction: self.direction,
            sender: Party(displayName: name, address: self.party.type.lowercased()),
            text: self.text,
            sentAt: sentAt
        )
        message.transcriptPosition = self.position
        if let file = self.file {
            message.attachments = [ChatAttachment(id: file.id, name: file.name, mimeType: file.mimeType, size: file.size)]
        }
        return message
    }
}
