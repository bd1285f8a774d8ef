import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

// The session's work, done in order by the driver's worker: REST calls and downloads (run beside the worker),
// analytics, the outbox. (The kit's driver does the session's socket and store writes itself.)
extension CXoneChatChannel {
    func carryOut(_ work: ChatSession.Work) async {
        switch work {
        case .machine(let action):
            await self.carryOut(action)
        case .download(let url, let large):
            self.driver.concurrently {
                let body = await Self.outcome { () async throws(ChatError) in try await self.rest.download(url) }
                let (input, ignored, messages) = ChatWireInput.downloadedEvent(
                    url: url,
                    body,
                    large: large,
                    limits: self.configuration.limits,
                    now: self.host.now()
                )
                if let ignored { self.host.logger.debug("\(self.prefix): ignored \(ignored)") }
                return { $0.downloaded(url: url, input, messages: messages) }
            }
        }
    }

    func carryOut(_ action: ChatStateMachine.Action) async {
        switch action {
        case .fetchChannelConfiguration(let brandID, let channelID):
            self.call(ChatStateMachine.Input.channelConfiguration) { () async throws(ChatError) in
                try await self.rest.channelConfiguration(brandID: brandID, channelID: channelID)
            }
        case .fetchAvailability(let brandID, let channelID):
            self.call(ChatStateMachine.Input.availability) { () async throws(ChatError) in
                try await self.rest.availability(brandID: brandID, channelID: channelID)
            }
        case .createOrUpdateVisitor(let brandID, let visitorID, let customerID):
            let customer = CXoneWire.CustomerIdentity(
                idOnExternalPlatform: CXoneID(customerID),
                firstName: self.configuration.firstName,
                lastName: self.configuration.lastName
            )
            self.call(ChatStateMachine.Input.visitor) { () async throws(ChatError) in
                try await self.rest.storeVisitor(brandID: brandID, visitorID: visitorID, customer: customer)
            }
        case .sendAnalytics(let brandID, let visitorID, let event):
            self.analytics.enqueue(Analytics(brandID: brandID, visitorID: visitorID, wire: ChatWireOutput.analytics(event, visitorID: visitorID)))
        case .persistOutbox(let entry):
            await self.persist(entry)
        case .removeFromOutbox(let messageID):
            await self.removeFromOutbox(messageID)
        case .openSocket, .closeSocket, .send, .download, .report, .setTimer, .cancelTimer, .store:
            // The session turns these into its own actions.
            break
        }
    }

    /// An analytics event for the server, sent beside the worker.
    struct Analytics: Sendable {
        var brandID: Int
        var visitorID: String
        var wire: CXoneWire.AnalyticsEvent
    }

    func send(_ analytics: Analytics) async {
        do throws(ChatError) {
            try await self.rest.sendAnalytics(brandID: analytics.brandID, visitorID: analytics.visitorID, analytics.wire)
        } catch {
            self.host.logger.warning("\(self.prefix): \(error.message)")
        }
    }

    /// Runs a REST call beside the worker and feeds the machine the input its outcome makes.
    func call<Value: Sendable>(
        _ input: @escaping @Sendable (Result<Value, ChatError>) -> ChatStateMachine.Input,
        _ request: @escaping @Sendable () async throws(ChatError) -> Value
    ) {
        self.driver.concurrently {
            let result = await Self.outcome(request)
            return { session in session.run { $0.handle(input(result)) } }
        }
    }

    static func outcome<Value>(_ request: () async throws(ChatError) -> Value) async -> Result<Value, ChatError> {
        do throws(ChatError) {
            return .success(try await request())
        } catch {
            return .failure(error)
        }
    }
}
