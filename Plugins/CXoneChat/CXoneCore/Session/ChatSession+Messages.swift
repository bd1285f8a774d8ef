package import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

// The user's operations that answer from what the session keeps of its messages: a choice's answer and
// where a file is.
extension ChatSession {
    /// `choose`: sends the answer a message's choice stands for (its button's text and postback), as
    /// request `id`, replying as a sent message does. A choice the session does not know (of a message
    /// older than the messages kept, or never offered), or a link to open, is an invalid argument.
    package mutating func choose(_ request: ChatCommand.Choose, id: UInt64) throws(ChannelError) -> [Action] {
        guard let message = self.extras.message(request.messageID), !message.choices.isEmpty else {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(request.messageID) offers no choices here (the channel keeps those of its latest \(self.extras.limit) messages)"
            )
        }
        if let threadID = request.threadID, !ChatStateMachine.sameID(threadID, message.threadID) {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(request.messageID) is not in thread \(threadID) but in \(message.threadID)"
            )
        }
        guard
            let choice = message.choices[request.choiceID]
                ?? message.choices.first(where: { ChatStateMachine.sameID($0.key, request.choiceID) })?.value
        else {
            let offered = message.choices.keys.sorted().joined(separator: ", ")
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(request.messageID) offers no choice \(request.choiceID); it offers \(offered)"
            )
        }
        if let url = choice.url {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): choice \(request.choiceID) of message \(request.messageID) is a link to open (\(CXoneEndpoints.redacted(url))), not an answer"
            )
        }
        let operation = try ChatOperation.sendMessage(
            choice.text,
            to: message.threadID,
            answer: choice.answer,
            at: request.now,
            timeout: request.timeout,
            gateway: request.gateway
        )
        return try self.begin(operation, id: id)
    }

    /// Where one of a message's files is, as its message brought it; a file the session does not know (of
    /// a message older than the messages kept, or never sent) is an invalid argument.
    package func attachment(threadID: String?, messageID: String, attachmentID: String) throws(ChannelError) -> ChatMessageExtras.File {
        guard let message = self.extras.message(messageID), !message.files.isEmpty else {
            throw ChannelError(
                .invalidArgument,
                "\(self.prefix): message \(messageID) has no attachments here (the channel keeps those of its latest \(self.extras.limit) messages)"
            )
        }
        if let threadID, !ChatStateMachine.sameID(threadID, message.threadID) {
            throw ChannelError(.invalidArgument, "\(self.prefix): message \(messageID) is not in thread \(threadID) but in \(message.threadID)")
        }
        guard let file = message.files[attachmentID] else {
            let listed = message.files.keys.sorted().joined(separator: ", ")
            throw ChannelError(.invalidArgument, "\(self.prefix): message \(messageID) has no attachment \(attachmentID); it has \(listed)")
        }
        return file
    }
}
