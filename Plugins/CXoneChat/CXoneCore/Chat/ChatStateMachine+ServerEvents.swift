import AttendantPluginAPI
import AttendantPluginKit

// Large events (EventInS3), errors from the server and answers that did not come.
extension ChatStateMachine {
    mutating func eventInS3(url: String) -> [Action] {
        guard self.connection.modifyConnected({ $0.downloads.insert(url).inserted }) == true else { return [] }
        return [.download(url: url)]
    }

    /// Ends the download of a large event's body; false if the open socket did not ask for it. A body
    /// that comes after its socket is gone belongs to a connection that ended, as its frames would: the
    /// next connection's recovery brings the thread as it is.
    mutating func downloadEnded(url: String) -> Bool {
        self.connection.modifyConnected { $0.downloads.remove(url) != nil } == true
    }

    /// The body of a large event, decoded as its origin event, is handled as if it came over the socket.
    mutating func downloaded(url: String, _ event: Input) -> [Action] {
        guard self.downloadEnded(url: url) else { return [] }
        guard event.isServerEvent else { return [] }
        return self.handle(event)
    }

    mutating func downloadFailed(url: String, reason: String) -> [Action] {
        guard self.downloadEnded(url: url) else { return [] }
        return [.report(.error(ChatError(.server, "could not download a large chat event from \(CXoneEndpoints.redacted(url)): \(reason)")))]
    }

    /// The downloaded body holds an event the machine does not use: the download is done, nothing failed.
    mutating func downloadIgnored(url: String) -> [Action] {
        _ = self.downloadEnded(url: url)
        return []
    }

    /// An operation error or server error: reported, and the flow waiting for an answer moves on.
    mutating func serverFailed(_ error: ChatError) -> [Action] {
        let code = error.serverCode?.lowercased() ?? ""
        switch self.connection.connected?.phase {
        case .authorizing(withToken: true) where code.hasSuffix("reconnectfailed"):
            return self.reauthorize()
        case .authorizing:
            return self.failConnection(error)
        case .loading(.recovery) where code == "recoveringthreadfailed" || code == "recoveringlivechatfailed":
            return self.threadRecoveryFailed(threadID: nil)
        case .loading:
            return [.report(.error(error))] + self.becomeReady()
        case .ready, .conversationOver, nil:
            return [.report(.error(error))]
        }
    }

    /// The connection flow's answer did not come within the response timeout.
    mutating func responseMissed() -> [Action] {
        let seconds = Self.seconds(self.configuration.responseTimeout)
        switch self.connection.connected?.phase {
        case .authorizing:
            return [.closeSocket] + self.connectionLost(reason: "no answer to authorization within \(seconds)")
        case .loading:
            return self.serverFailed(ChatError(.connection, "the chat server did not answer within \(seconds) while loading threads"))
        case .ready, .conversationOver, nil:
            return []
        }
    }
}

extension ChatStateMachine.Input {
    /// An event the chat server sends over the WebSocket (and so one a large event's body may hold);
    /// REST answers, socket state and EventInS3 itself are not.
    package var isServerEvent: Bool {
        switch self {
        case .authorized, .reconnected, .tokenRefreshed, .threadRecovered, .threadRecoveryFailed, .threadListFetched, .threadMetadataLoaded,
            .messageCreated, .hiddenMessageCreated, .proactiveAction, .caseStatusChanged, .operationError, .serverError,
            .agentTyping, .positionInQueue, .assigneeChanged, .messageRead:
            return true
        case .channelConfigurationFetched, .channelConfigurationFailed, .availabilityFetched, .availabilityFailed,
            .visitorStored, .visitorFailed, .socketOpened, .socketClosed, .eventInS3, .downloaded, .downloadFailed, .downloadIgnored, .pong,
            .transactionTokenFetched, .transactionTokenFailed:
            return false
        }
    }
}
