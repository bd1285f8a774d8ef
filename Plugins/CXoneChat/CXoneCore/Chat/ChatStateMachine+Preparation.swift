package import AttendantPluginAPI
import AttendantPluginKit

// The "application becomes active" and "application enters background" diagrams.
extension ChatStateMachine {
    /// `prepare(brandId:channelId:)`: fetches the channel configuration, creates the visitor and customer
    /// ids if none are stored, registers the visitor, and ends in `prepared`. Legal in `initial` and
    /// `offline`; a server error returns to `initial`.
    package mutating func prepare(brandID: Int, channelID: String) throws(ChatError) -> [Action] {
        guard self.state == .initial || self.state == .offline else {
            throw .illegalState("prepare the chat", self.state, expected: "prepare is allowed only while it is initial or offline")
        }
        self.brandID = brandID
        self.channelID = channelID
        return self.enter(.preparing(.configuration)) + [.fetchChannelConfiguration(brandID: brandID, channelID: channelID)]
    }

    /// `disconnect()`: `preparing` goes back to `initial`, `offline` to `prepared`; a connection is
    /// closed and the chat is `prepared` again. Threads stay known. A chat asleep stays asleep.
    package mutating func disconnect() -> [Action] {
        switch self.connection {
        case .preparing:
            return self.enter(.unprepared)
        case .offline, .checkingAvailability(offline: false):
            return self.enter(.prepared)
        case .checkingAvailability(offline: true):
            // As `offline`, the chat is `prepared`; the availability it asked for still decides.
            return self.enter(.checkingAvailability(offline: false))
        case .authenticating, .opening, .connected, .waitingToReconnect:
            return self.tearDownConnection() + self.enter(.prepared)
        case .unprepared, .prepared, .asleep:
            return []
        }
    }

    /// The daemon's background signal (suspend, lock): the page view ends, then ``disconnect()``. A
    /// connected session is resumed by ``foreground()``.
    package mutating func background(at now: UnixTime) -> [Action] {
        var actions = self.endPageView(at: now)
        let connected = [.connecting, .connected, .ready, .closed].contains(self.state)
        actions += self.disconnect()
        if connected { self.connection = .asleep }
        return actions
    }

    /// The daemon's foreground signal: reconnects a session ``background(at:)`` disconnected, as after a
    /// lost connection (a live chat asks for the availability first, as on connect): the threads are
    /// recovered whole, so what the agent wrote while the machine slept is met, in a thread opened
    /// meanwhile too, not just each thread's last message (found by the full-size fault campaign).
    package mutating func foreground() -> [Action] {
        guard self.connection == .asleep else { return [] }
        self.connection = .prepared
        guard self.channelConfiguration?.isLiveChat == false else { return (try? self.connect()) ?? [] }
        return self.openSocket(recovery: ChatConnection.Recovery(attempt: 0, lastLoss: "the machine slept"))
    }

    // MARK: Results

    mutating func configurationFetched(_ configuration: ChannelConfiguration) -> [Action] {
        guard self.connection == .preparing(.configuration), let brandID = self.brandID else { return [] }
        self.channelConfiguration = configuration
        var actions: [Action] = []
        let visitorID =
            self.persisted.visitorID
            ?? {
                let id = self.random.uuid()
                self.persisted.visitorID = id
                actions.append(.store(.visitorID(id)))
                return id
            }()
        let customerID =
            self.persisted.customerID
            ?? {
                let id = self.random.uuid()
                self.persisted.customerID = id
                actions.append(.store(.customerID(id)))
                return id
            }()
        self.connection = .preparing(.visitor)
        actions.append(.createOrUpdateVisitor(brandID: brandID, visitorID: visitorID, customerID: customerID))
        return actions
    }

    mutating func visitorStored() -> [Action] {
        guard self.connection == .preparing(.visitor) else { return [] }
        return self.enter(.prepared)
    }

    mutating func preparationFailed(_ error: ChatError, during step: ChatConnection.Preparation) -> [Action] {
        guard self.connection == .preparing(step) else { return [] }
        return self.enter(.unprepared) + [.report(.error(error))]
    }
}
