import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import FoundationEssentials
import Synchronization

// The worker: what the machine's steps queued, done in order (REST calls started as tasks of their own,
// socket writes, the store and secrets, events for the host).
extension CXoneChatChannel {
    // MARK: The worker

    func carryOut(_ item: Work) async {
        switch item {
        case .action(let action):
            await self.carryOut(action)
        case .openSocket(let url, let generation):
            guard self.state.withLock({ $0.socketGeneration == generation }) else { return }
            let socket = CXoneSocket.open(network: self.host.network, url: url, maximumSize: self.configuration.limits.maxFrameSize * 4) { [weak self] event in
                self?.socketEvent(event, generation: generation)
            }
            let current = self.state.withLock { state -> Bool in
                guard state.socketGeneration == generation else { return false }
                state.socket = socket
                return true
            }
            if !current { socket.close() }
        case .closeSocket(let socket):
            socket.close()
        case .write(let generation, let bytes):
            guard let socket = self.state.withLock({ $0.socketGeneration == generation ? $0.socket : nil }) else { return }
            do {
                try await socket.send(bytes)
            } catch {
                // The socket's end is reported by the socket itself.
                self.host.logger.debug("\(self.prefix): a frame was not sent: \(error)")
            }
        case .emit(let event):
            self.host.emit(event)
        case .log(let level, let message):
            self.host.logger.log(level: level, "\(message)")
        }
    }

    func carryOut(_ action: Action) async {
        switch action {
        case .fetchChannelConfiguration(let brandID, let channelID):
            self.call(Input.channelConfiguration) { () async throws(ChatError) in try await self.rest.channelConfiguration(brandID: brandID, channelID: channelID) }
        case .fetchAvailability(let brandID, let channelID):
            self.call(Input.availability) { () async throws(ChatError) in try await self.rest.availability(brandID: brandID, channelID: channelID) }
        case .createOrUpdateVisitor(let visitorID, let customerID):
            guard let brandID = self.state.withLock({ $0.machine?.brandID }) else { return }
            let customer = CXoneWire.CustomerIdentity(
                idOnExternalPlatform: CXoneID(customerID), firstName: self.configuration.firstName, lastName: self.configuration.lastName
            )
            self.call(Input.visitor) { () async throws(ChatError) in try await self.rest.storeVisitor(brandID: brandID, visitorID: visitorID, customer: customer) }
        case .sendAnalytics(let visitorID, let event):
            guard let brandID = self.state.withLock({ $0.machine?.brandID }) else { return }
            let wire = ChatWireOutput.analytics(event, visitorID: visitorID)
            // One after the other, so the server sees a visit before its page views.
            self.state.withLock { state in
                let previous = state.analytics
                state.analytics = Task {
                    await previous?.value
                    do throws(ChatError) {
                        try await self.rest.sendAnalytics(brandID: brandID, visitorID: visitorID, wire)
                    } catch {
                        self.host.logger.warning("\(self.prefix): \(error.message)")
                    }
                }
            }
        case .download(let url):
            let large = self.state.withLock { $0.link.largeEvent(at: url) }
            Task {
                let input = await self.downloadedInput(url: url, large: large)
                self.feed { machine, state in
                    state.link.downloaded(url)
                    return machine.handle(input)
                }
            }
        case .store(let value):
            await self.persist(value)
        case .persistOutbox(let entry):
            await self.persist(entry)
        case .removeFromOutbox(let messageID):
            await self.removeFromOutbox(messageID)
        case .report(let report):
            await self.recordContact(report)
            self.report(report)
        case .openSocket, .closeSocket, .send, .setTimer, .cancelTimer:
            // Handled under the lock (see handle(_:_:)).
            break
        }
    }

    /// Runs a REST call as a task of its own (the worker goes on meanwhile) and feeds the machine the
    /// input its outcome makes.
    func call<Value: Sendable>(
        _ input: @escaping @Sendable (Result<Value, ChatError>) -> Input,
        _ request: @escaping @Sendable () async throws(ChatError) -> Value
    ) {
        Task {
            let result: Result<Value, ChatError>
            do throws(ChatError) {
                result = .success(try await request())
            } catch {
                result = .failure(error)
            }
            self.feed { machine, _ in machine.handle(input(result)) }
        }
    }

    /// The input a large event's body makes: its origin event, or why it could not be had.
    func downloadedInput(url: String, large: CXoneWire.EventInS3?) async -> ChatStateMachine.Input {
        guard let large else { return .downloadFailed(url: url, reason: "the notice of the event is gone") }
        do {
            let body = try await self.rest.download(url)
            let origin = try large.decodeOrigin(body, limits: self.configuration.limits)
            let (input, ignored) = ChatWireInput.input(for: origin, now: self.host.now())
            guard let input else {
                self.host.logger.debug("\(self.prefix): ignored a large \(large.originEventType) event: \(ignored ?? "not used")")
                return .downloadIgnored(url: url)
            }
            return .downloaded(url: url, input)
        } catch let error as ChatError {
            return .downloadFailed(url: url, reason: error.message)
        } catch {
            return .downloadFailed(url: url, reason: "its \(large.originEventType) body is not valid: \(error)")
        }
    }

    func report(_ report: Report) {
        switch report {
        case .stateChanged(let state):
            self.host.logger.debug("\(self.prefix): the chat is \(state)")
            self.host.emit(.chatStateChanged(state))
        case .threadUpdated(let thread):
            self.host.emit(.threadUpdated(thread))
        case .messageReceived(let message):
            self.host.emit(.messageReceived(message))
        case .error(let error):
            self.host.logger.warning("\(self.prefix): \(error.message)")
        }
    }

    /// Waits until the worker has done everything queued so far.
    func drain() async {
        await self.worker.drain()
    }
}
