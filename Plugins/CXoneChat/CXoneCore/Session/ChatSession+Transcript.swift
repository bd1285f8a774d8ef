package import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

// The transcript by e-mail: SendTranscript with the thread's contact and the address, answered by
// TranscriptSent, as the SDK's `ChatThreadService.sendTranscript(to:)` checks and sends it (nice-cxone-
// mobile-sdk-ios `Services/ChatThreadService.swift`, `SendTranscriptDataDTO`): connected, the thread not
// pending, the channel's `liveChatAllowTranscript` on, the address matching the SDK's `emailRegEx`, and the
// thread's contact known; the operation error `SendingTranscriptFailed` is its refusal.
extension ChatSession {
    /// `sendTranscript`: the transcript of the thread (nil: the working one) e-mailed to `email`, as
    /// request `id`, replied `done` once the server says it is sent.
    package mutating func sendTranscript(threadID: String?, email: String, timeout: Duration, id: UInt64) throws(ChannelError) -> [Action] {
        guard self.machine.state == .ready else {
            throw ChannelError(.illegalState, "\(self.prefix): cannot send a transcript while the chat is \(self.machine.state): connect first")
        }
        guard self.machine.channelConfiguration?.allowsTranscript == true else {
            throw ChannelError(
                .unsupported,
                "\(self.prefix): the channel does not allow transcripts (its configuration's settings.liveChatAllowTranscript is off)"
            )
        }
        guard let target = threadID ?? self.machine.workingThread(current: self.currentThread), let thread = self.machine.thread(target) else {
            throw ChannelError(.illegalState, "\(self.prefix): there is no chat thread \(threadID ?? "open") to send the transcript of")
        }
        guard thread.state != .pending else {
            throw ChannelError(.illegalState, "\(self.prefix): thread \(thread.id) has no messages on the server yet: send one first")
        }
        guard Self.isEmailAddress(email) else {
            throw ChannelError(.invalidArgument, "\(self.prefix): '\(email)' is not an e-mail address (such as name@example.com)")
        }
        guard let caseID = self.machine.known.caseID(ofThread: thread.id) else {
            throw ChannelError(.illegalState, "\(self.prefix): thread \(thread.id) has no contact on the server yet: wait for the agent or reopen it")
        }
        let eventID = CXoneID.random()
        self.transcriptRequests[eventID] = id
        self.requests[id] = Request(pending: ChatOperation.Pending(actions: []) { _, _ in nil }, timeout: timeout)
        return [.setTimer(.request(id), after: timeout), self.frame(for: .sendTranscript(caseID: caseID, email: email), eventID: eventID)]
    }

    /// Answers the request a TranscriptSent (or its refusal) is for.
    mutating func transcriptAnswer(_ inbound: CXoneInbound) -> [Action] {
        guard let eventID = inbound.answeredRequestId, let id = self.transcriptRequests.removeValue(forKey: eventID),
            let request = self.requests.removeValue(forKey: id)
        else { return [] }
        let outcome: ChatOperation.Outcome
        if let refusal = self.refusal(inbound, refused: "could not send the transcript", failed: "failed to send the transcript") {
            outcome = .failure(refusal)
        } else {
            guard case .transcriptSent? = inbound.receivedEvent else { return [] }
            outcome = .success(.done)
        }
        return self.replied(id, outcome, request)
    }

    /// The SDK's `String.emailRegEx`: `^[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,9}$`.
    static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        func isLocal(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || "_%+-".contains(c)) }
        let local = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard local.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isLocal) }) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, (2...9).contains(top.count), top.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return labels.dropLast().allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }
    }
}
