import AttendantPluginAPI

/// What the host knows of the chat: whether the channel listens, whether the desktop is in the
/// background, and the last error the machine reported; and, after each step of the machine, what the
/// host is to hear of it.
package struct ChatPresence: Sendable {
    /// What a step means to the host.
    package enum Notice: Sendable, Equatable {
        /// The chat went back to connecting after a loss: the machine tries again (`attempt`, from 1), for
        /// the log. Attempts refused while it stays connecting are not noticed one by one.
        case reconnecting(attempt: Int, reason: String?)
        /// A listening chat fell back to prepared (the machine gave up reconnecting): the channel stopped
        /// listening, and the host calls `listen()` again.
        case lost(reason: String)
    }

    /// `listen()` succeeded and no loss has been reported since.
    package var listening = false
    /// The desktop is in the background: the disconnect that brings is not a loss.
    package var background = false
    /// The last error the machine reported, for the loss report and `chat status`: it belongs to the chat
    /// that failed, so connecting again or a new chat (a thread created here) ends it.
    package private(set) var lastError: ChatError?

    package init() {}

    /// `listen()` connected the chat: it listens, and earlier errors are over.
    package mutating func connected() {
        self.listening = true
        self.lastError = nil
    }

    /// After a step that reported `reports` and left `machine` as it is: notes the errors and says what the
    /// host hears.
    package mutating func after(_ reports: [ChatStateMachine.Report], machine: ChatStateMachine) -> [Notice] {
        for report in reports {
            switch report {
            case .error(let error):
                self.lastError = error
            case .threadUpdated(let thread) where thread.state == .pending:
                // Only a thread created here is pending (the SDK's createThread): a new chat starts.
                self.lastError = nil
            default:
                break
            }
        }
        var notices: [Notice] = []
        if machine.reconnectAttempt > 0, reports.contains(.stateChanged(.connecting)) {
            notices.append(.reconnecting(attempt: machine.reconnectAttempt, reason: machine.lastLossReason))
        }
        if self.listening, !self.background, ![.connecting, .connected, .ready, .closed].contains(machine.state) {
            self.listening = false
            notices.append(.lost(reason: self.lastError?.message ?? "the chat is \(machine.state)"))
        }
        return notices
    }
}
