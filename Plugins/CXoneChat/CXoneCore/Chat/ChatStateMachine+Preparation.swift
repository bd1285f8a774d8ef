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
        self.step = .configuration
        return self.enter(.preparing) + [.fetchChannelConfiguration(brandID: brandID, channelID: channelID)]
    }

    /// `disconnect()`: `preparing` goes back to `initial`, `offline` to `prepared`; a connection is
    /// closed and the chat is `prepared` again. Threads stay known.
    package mutating func disconnect() -> [Action] {
        switch self.state {
        case .preparing:
            self.step = .idle
            return self.enter(.initial)
        case .offline:
            return self.enter(.prepared)
        case .prepared:
            self.step = .idle
            return []
        case .connecting, .connected, .ready, .closed:
            return self.tearDownConnection() + self.enter(.prepared)
        default:
            return []
        }
    }

    /// The daemon's background signal (suspend, lock): the page view ends, then ``disconnect()``. A
    /// connected session is resumed by ``foreground()``.
    package mutating func background(at now: UnixTime) -> [Action] {
        var actions = self.endPageView(at: now)
        if [.connecting, .connected, .ready, .closed].contains(self.state) { self.resumeOnForeground = true }
        actions += self.disconnect()
        return actions
    }

    /// The daemon's foreground signal: reconnects a session ``background(at:)`` disconnected.
    package mutating func foreground() -> [Action] {
        guard self.resumeOnForeground, self.state == .prepared else { return [] }
        self.resumeOnForeground = false
        return (try? self.connect()) ?? []
    }

    // MARK: Results

    mutating func configurationFetched(_ configuration: ChannelConfiguration) -> [Action] {
        guard self.state == .preparing, self.step == .configuration, let brandID = self.brandID else { return [] }
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
        self.step = .visitor
        actions.append(.createOrUpdateVisitor(brandID: brandID, visitorID: visitorID, customerID: customerID))
        return actions
    }

    mutating func visitorStored() -> [Action] {
        guard self.state == .preparing, self.step == .visitor else { return [] }
        self.step = .idle
        return self.enter(.prepared)
    }

    mutating func preparationFailed(_ error: ChatError, during step: Step) -> [Action] {
        guard self.state == .preparing, self.step == step else { return [] }
        self.step = .idle
        return self.enter(.initial) + [.report(.error(error))]
    }
}
