import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit

// The session's REST calls (``ChatCall``) as the channel carries them out: the call for a piece of work,
// a call that cannot be made, and the analytics events one at a time.
//
// Analytics go out in the machine's order, one on the network at a time: the next is the work of the step
// that reads the previous one's answer (``analyticsAnswered(_:)``, from ``ChatCall/step(_:now:)``), so
// the server sees a visit before its page views without a queue of the channel's own, and the order is a
// pure value the tests can see. They are best effort, as the SDK sends them: a failure is a warning in
// the log and never retried, and the next event goes all the same.
extension ChatSession {
    /// Analytics events while one is on the network: the events that wait behind it, oldest first.
    enum AnalyticsQueue: Sendable {
        case idle
        case sending(waiting: [ChatStateMachine.Action])

        /// `event` goes now (returned) unless one is on the network, behind which it waits.
        mutating func add(_ event: ChatStateMachine.Action) -> ChatStateMachine.Action? {
            switch self {
            case .idle:
                self = .sending(waiting: [])
                return event
            case .sending(let waiting):
                self = .sending(waiting: waiting + [event])
                return nil
            }
        }

        /// The one on the network was answered: the next to go, if any waits.
        mutating func answered() -> ChatStateMachine.Action? {
            guard case .sending(var waiting) = self, !waiting.isEmpty else {
                self = .idle
                return nil
            }
            let next = waiting.removeFirst()
            self = .sending(waiting: waiting)
            return next
        }
    }

    /// The analytics event on the network was answered, or `failure` says why not (a warning, not
    /// retried): the next waiting event goes.
    package mutating func analyticsAnswered(_ failure: ChatError?) -> [Action] {
        let warning = failure.map { [Action.log(.warning, "\(self.prefix): \($0.message)")] } ?? []
        return warning + (self.analytics.answered().map { [.work(.machine($0))] } ?? [])
    }

    /// The call for `work` could not be made (its body could not be encoded): the machine hears it as the
    /// call's failure, as it would a refusal.
    package mutating func unsent(_ work: Work, _ error: ChatError) -> [Action] {
        switch work {
        case .machine(.createOrUpdateVisitor): return self.run { $0.handle(.visitor(.failure(error))) }
        case .machine(.sendAnalytics): return self.analyticsAnswered(error)
        default: return [.log(.warning, "\(self.prefix): \(error.message)")]
        }
    }
}

extension ChatSession.Work {
    /// The REST call that carries out this work (a fetch, the visitor, an analytics event, a large event's
    /// body), the encoding error when it cannot be made, or nil for work that is no call (the outbox's).
    package func call(_ settings: ChatSession.Settings) -> Result<ChatCall, ChatError>? {
        switch self {
        case .machine(let action): ChatCall.making(action, settings: settings)
        case .download(let url, let notice): .success(ChatCall.largeEvent(url, notice, settings: settings))
        }
    }
}
