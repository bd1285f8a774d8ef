import AttendantPluginAPI
import AttendantPluginKit

// Large events (EventInS3), errors from the server and answers that did not come.
extension ChatStateMachine {
    mutating func eventInS3(url: String) -> [Action] {
        guard self.socketOpen, self.pendingDownloads.insert(url).inserted else { return [] }
        return [.download(url: url)]
    }

    /// The body of a large event, decoded as its origin event, is handled as if it came over the socket.
    mutating func downloaded(url: String, _ event: Input) -> [Action] {
        guard self.pendingDownloads.remove(url) != nil else { return [] }
        guard event.isServerEvent else { return [] }
        return self.handle(event)
    }

    mutating func downloadFailed(url: String, reason: String) -> [Action] {
        guard self.pendingDownloads.remove(url) != nil else { return [] }
        return [.report(.error(ChatError(.server, "could not download a large chat event from \(CXoneEndpoints.redacted(url)): \(reason)")))]
    }

    /// The downloaded body holds an event the machine does not use: the download is done, nothing failed.
    mutating func downloadIgnored(url: String) -> [Action] {
        self.pendingDownloads.remove(url)
        return []
    }

    /// An operation error or server error: reported, and the flow waiting for an answer moves on.
    mutating func serverFailed(_ error: ChatError) -> [Action] {
        let code = error.serverCode?.lowercased() ?? ""
        switch self.step {
        case .authorization(withToken: true) where code.hasSuffix("reconnectfailed"):
            return self.reauthorize()
        case .authorization:
            return self.failConnection(error)
        case .recovery where code == "recoveringthreadfailed" || code == "recoveringlivechatfailed":
            return self.threadRecoveryFailed(threadID: nil)
        case .recovery, .recoveries, .threadList, .metadata:
            return [.report(.error(error))] + self.becomeReady()
        default:
            return [.report(.error(error))]
        }
    }

    /// The connection flow's answer did not come within the response timeout.
    mutating func responseMissed() -> [Action] {
        let seconds = Self.seconds(self.configuration.responseTimeout)
        switch self.step {
        case .authorization:
            guard self.socketOpen else { return [] }
            self.socketOpen = false
            return [.closeSocket] + self.connectionLost(reason: "no answer to authorization within \(seconds)")
        case .recovery, .recoveries, .threadList, .metadata:
            return self.serverFailed(ChatError(.connection, "the chat server did not answer within \(seconds) while loading threads"))
        default:
            return []
        }
    }
}

extension ChatStateMachine.Input {
    /// An event the chat server sends over the WebSocket (and so one a large event's body may hold);
    /// REST answers, socket state and EventInS3 itself are not.
    package var isServerEvent: Bool {
        switch self {
        case .authorized, .reconnected, .threadRecovered, .threadRecoveryFailed, .threadListFetched, .threadMetadataLoaded,
            .messageCreated, .proactiveAction, .caseStatusChanged, .operationError, .serverError,
            .agentTyping, .positionInQueue, .assigneeChanged, .messageRead:
            return true
        case .channelConfigurationFetched, .channelConfigurationFailed, .availabilityFetched, .availabilityFailed,
            .visitorStored, .visitorFailed, .socketOpened, .socketClosed, .eventInS3, .downloaded, .downloadFailed, .downloadIgnored, .pong:
            return false
        }
    }
}
