package import AttendantPluginAPI
import ServiceLifecycle
import Synchronization

/// Takes every event from every channel, in order: records contacts in the state store, logs them to
/// the journal, and hands them to the presenters (the terminal in the demo, the desktop).
///
/// Two stages, each in order: recording (the state database and the journal) and presenting. Recording
/// never waits for the desktop, so a notification server that is slow to answer holds back alerts, not
/// the history. A contact is logged as recorded only after its row is committed. ``recorded(channel:)``
/// lets a channel's own writes wait for what it reported before them (``HistoryFirstStore``).
package final class EventRouter: Service {
    struct Delivery: Sendable {
        var channel: String
        var event: ChannelEvent
        /// The channel's count of events delivered, this one included.
        var sequence: UInt64
    }

    /// How far each channel's events are recorded, and who waits for that.
    private struct Progress {
        var delivered: [String: UInt64] = [:]
        var recorded: [String: UInt64] = [:]
        var waiters: [(channel: String, sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        /// Recording has ended (the daemon stops): nothing waits any more.
        var over = false
    }

    private let store: StateStore
    private let logger: Logger
    private let presenters: [any AlertPresenter]
    private let wallClock: @Sendable () -> UnixTime
    private let metrics: DaemonMetrics
    private let stream: AsyncStream<Delivery>
    private let continuation: AsyncStream<Delivery>.Continuation
    private let presenting: AsyncStream<Delivery>
    private let toPresent: AsyncStream<Delivery>.Continuation
    private let progress = Mutex(Progress())

    package init(
        store: StateStore,
        logger: Logger,
        presenters: [any AlertPresenter],
        wallClock: @escaping @Sendable () -> UnixTime = SystemWallClock.now,
        metrics: DaemonMetrics = DaemonMetrics()
    ) {
        self.store = store
        self.logger = logger
        self.presenters = presenters
        self.wallClock = wallClock
        self.metrics = metrics
        (self.stream, self.continuation) = AsyncStream.makeStream()
        (self.presenting, self.toPresent) = AsyncStream.makeStream()
    }

    /// Queues an event; returns at once. A contact's or action's alert latency runs from here.
    package func deliver(_ event: ChannelEvent, from channel: String) {
        switch event {
        case .incomingContact(let contact): self.metrics.alertAwaited(.contact(channel: channel, contactID: contact.id))
        case .actionReceived(let action): self.metrics.alertAwaited(.inAppAction(channel: channel, actionID: action.id))
        default: break
        }
        let sequence = self.progress.withLock { progress in
            progress.delivered[channel, default: 0] += 1
            return progress.delivered[channel, default: 0]
        }
        self.continuation.yield(Delivery(channel: channel, event: event, sequence: sequence))
    }

    /// Returns once every event `channel` delivered so far is recorded: its contact or outcome committed
    /// to the state database (an event that records nothing counts once it is logged). At once when
    /// recording has ended.
    package func recorded(channel: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = self.progress.withLock { progress in
                let sequence = progress.delivered[channel, default: 0]
                guard !progress.over, progress.recorded[channel, default: 0] < sequence else { return true }
                progress.waiters.append((channel, sequence, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    package func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await delivery in self.presenting {
                        for presenter in self.presenters {
                            await presenter.present(delivery.event, channel: delivery.channel)
                        }
                    }
                }
                for await delivery in self.stream {
                    await self.record(delivery)
                    self.markRecorded(delivery)
                    self.toPresent.yield(delivery)
                }
                self.endRecording()
                self.toPresent.finish()
            }
        } onGracefulShutdown: {
            // Channels have stopped by now (services stop in reverse order): drain what is queued.
            self.continuation.finish()
        }
    }

    private func markRecorded(_ delivery: Delivery) {
        let ready = self.progress.withLock { progress in
            progress.recorded[delivery.channel] = delivery.sequence
            var ready: [CheckedContinuation<Void, Never>] = []
            progress.waiters.removeAll { waiter in
                guard waiter.channel == delivery.channel, waiter.sequence <= delivery.sequence else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    private func endRecording() {
        let waiting = self.progress.withLock { progress in
            progress.over = true
            defer { progress.waiters.removeAll() }
            return progress.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Records and logs one event.
    private func record(_ delivery: Delivery) async {
        var logger = self.logger
        logger[metadataKey: "channel"] = .string(delivery.channel)
        switch delivery.event {
        case .incomingContact(let contact), .contactUpdated(let contact):
            logger[metadataKey: "contact"] = .string(contact.id)
            if case .incomingContact = delivery.event {
                self.metrics.contact(channel: delivery.channel, kind: contact.kind, outcome: DaemonMetrics.rang)
            }
            do {
                try await self.store.recordIncoming(contact, channel: delivery.channel)
                if case .incomingContact = delivery.event {
                    logger.notice("incoming \(contact.kind) from \(contact.from): recorded")
                }
            } catch {
                logger.error("incoming \(contact.kind) from \(contact.from): cannot record it in \(self.store.path): \(error)")
            }
        case .contactEnded(let contactID, let outcome):
            logger[metadataKey: "contact"] = .string(contactID)
            do {
                let kind = try await self.store.recordOutcome(outcome, contactID: contactID, channel: delivery.channel, at: self.wallClock())
                // Counted by the kind recorded at its arrival; an end without an arrival is not a contact.
                if let kind { self.metrics.contact(channel: delivery.channel, kind: kind, outcome: outcome.rawValue) }
                logger.notice("contact ended: \(outcome)")
            } catch {
                logger.error("contact ended (\(outcome)): cannot record it in \(self.store.path): \(error)")
            }
        case .actionReceived(let action):
            // An in-app action is a contact of kind action in the history: from its campaign, its title
            // as the summary (never the body: campaign text may be personal).
            logger[metadataKey: "contact"] = .string(action.id)
            var contact = Contact(
                id: action.id,
                kind: .action,
                from: Party(displayName: "", address: action.campaignID),
                summary: action.title,
                receivedAt: self.wallClock()
            )
            contact.actions = action.links.map { ContactAction(id: "link", label: $0.label) }
            self.metrics.contact(channel: delivery.channel, kind: .action, outcome: DaemonMetrics.rang)
            do {
                try await self.store.recordIncoming(contact, channel: delivery.channel)
                logger.notice("in-app action of campaign \(action.campaignID) (\(action.shortenID)): recorded")
            } catch {
                logger.error("in-app action of campaign \(action.campaignID): cannot record it in \(self.store.path): \(error)")
            }
        case .actionClosed(let actionID, let reason):
            logger[metadataKey: "contact"] = .string(actionID)
            // A link followed is the action taken; dismissed by the person (or suppress) is declined; a
            // screen change closed it on its own.
            let outcome: ContactOutcome = reason == "click" ? .answered : (reason == "dismiss" || reason == "hard") ? .declined : .completed
            do {
                if let kind = try await self.store.recordOutcome(outcome, contactID: actionID, channel: delivery.channel, at: self.wallClock()) {
                    self.metrics.contact(channel: delivery.channel, kind: kind, outcome: outcome.rawValue)
                }
                logger.info("in-app action closed (\(reason))")
            } catch {
                logger.error("in-app action closed (\(reason)): cannot record it in \(self.store.path): \(error)")
            }
        case .actionLifecycle(let step):
            logger.debug("in-app action \(step.phase) \(step.actionID) \(step.reason)")
        case .stoppedListening:
            break  // the supervisor logs it with its recovery decision
        case .chatStateChanged(let state):
            logger.info("chat \(state)")
        case .threadUpdated(let thread):
            logger.info("chat thread \(thread.id) \(thread.state)")
        case .messageReceived(let message):
            // Never the text: the journal is not the transcript.
            logger.info("chat \(message.kind) \(message.id) in thread \(message.threadID), \(message.direction) from \(message.sender.displayName)")
        default:
            logger.info("\(delivery.event.name)")
        }
    }
}

/// Shows channel events to the person at the desk.
package protocol AlertPresenter: Sendable {
    func present(_ event: ChannelEvent, channel: String) async
}
