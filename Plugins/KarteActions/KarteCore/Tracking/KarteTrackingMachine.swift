package import AttendantPluginAPI
package import AttendantPluginKit

/// KARTE's track client with no I/O: events in, requests out, answers classified. Time comes in as the
/// event's wall-clock date (`now: UnixTime`) and as timers the driver runs, so tests need no sleeping.
///
/// What it guarantees (karte.md §1 and §3):
/// - pv ids as the SDKs keep them: `original_pv_id` is fixed for the machine's life (one daemon run),
///   `pv_id` starts equal to it and is renewed on every `view` **before** the view event is recorded, so
///   the view already carries the new pv; ``markBoundary()`` renews without an event;
/// - every event is stamped with (visitor, pv_id, original_pv_id) and its date when it is tracked;
/// - batching as the SDKs: a request holds one keys group and at most
///   ``Configuration/maximumEventsPerRequest`` events; events wait at most ``Configuration/batchWindow``
///   (a full group goes at once);
/// - 2xx answers are decoded and reported with ``Action/responseReceived(request:response:isRetry:)``;
///   4xx answers drop the request; 5xx answers and other failures retry it after 0.5 s × 4ⁿ, up to
///   ``Configuration/maximumRetries`` times, its events marked `_retry: true` (`_fetch_variables` is never
///   retried). The response to a retry is reported with `isRetry: true`: it must never show anything.
/// - a sending that got no answer at all (``requestUnanswered(_:reason:now:)``: no name, no connection, no
///   answer in time) is the network's failure, not the server's: it spends none of those retries, goes
///   again after the same backoff (at most its cap) and at once when the network changes
///   (``networkChanged()``), for up to ``Configuration/maximumUnansweredWait``. Android's SDK sends
///   nothing while the device is offline and keeps its events until the network is back (Dispatcher.kt:
///   its connectivity observer suspends the queue and dispatches it 0.5 s after the network returns), so
///   events tracked during an outage longer than the retries' 10.5 s still reach KARTE.
package struct KarteTrackingMachine: Sendable {
    package struct Configuration: Sendable, Hashable {
        package var appInfo: KarteAppInfo
        package var maximumEventsPerRequest = 10
        package var batchWindow: Duration = .milliseconds(100)
        /// Android's `ExponentialBackoff(500, 4)`: 0.5 s, 2 s, 8 s.
        package var retryBackoff = Backoff(base: .milliseconds(500), factor: 4, cap: .seconds(60), jitter: .none)
        /// Retries after the first sending (Android's `MAX_RETRY_COUNT`).
        package var maximumRetries = 3
        /// How long a request whose sendings get no answer keeps going again, from its oldest event's
        /// tracking: a day, so that a laptop offline overnight loses nothing of the evening before, and a
        /// track URL that never answers does not keep events forever.
        package var maximumUnansweredWait: Duration = .seconds(86_400)
        /// A response body past this is refused unread.
        package var responseSizeLimit = KarteTrackResponse.defaultSizeLimit

        package init(appInfo: KarteAppInfo) {
            self.appInfo = appInfo
        }
    }

    package enum TimerKind: Sendable, Hashable {
        /// The end of the batching window.
        case flush
        /// The wait before a failed request goes again.
        case retry(requestID: UInt64)
    }

    package enum Action: Sendable, Hashable {
        /// Run a timer; hand its id back to ``timerFired(_:)``.
        case arm(TimerID<TimerKind>, after: Duration)
        /// POST the body (gzipped) and report with ``requestCompleted(_:status:body:)`` or ``requestFailed(_:reason:)``.
        case send(KarteTrackRequest, body: [UInt8])
        /// A 2xx answer, decoded. Hand it to the actions machine unless `isRetry`.
        case responseReceived(request: KarteTrackRequest, response: KarteTrackResponse, isRetry: Bool)
        /// A 2xx answer that could not be read: log the error (it names no content).
        case responseUnreadable(request: KarteTrackRequest, error: KarteDecodeError)
        /// Given up: a 4xx answer, or the last retry failed. The reason names status or failure, no content.
        case dropped(request: KarteTrackRequest, reason: String)
        /// The pv_id changed; reset shown actions softly if ``KartePageChange/isReset``.
        case pageChanged(KartePageChange)
    }

    package let configuration: Configuration
    package private(set) var visitorID: String
    package let originalPVID: String
    package private(set) var pvID: String
    /// Tracked events not yet in a request, in tracking order.
    var pending: [KarteRecordedEvent] = []
    /// Requests sent and not yet answered.
    var inFlight: [UInt64: KarteTrackRequest] = [:]
    /// Failed requests waiting for their retry timer.
    var waitingToRetry: [UInt64: KarteTrackRequest] = [:]
    var timers = TimerTable<TimerKind>()
    var nextRequestID: UInt64 = 0
    var nextEventNumber: UInt64 = 0
    /// Events recorded, and events whose request ended, since the driver last asked (``takeJournal()``).
    var journal = Journal()
    var random: any RandomNumberGenerator & Sendable

    /// What the driver keeps in its store so that a crash loses no event (see ``takeJournal()``).
    package struct Journal: Sendable, Hashable {
        /// Newly recorded: keep each under its ``KarteRecordedEvent/localID`` until it is finished.
        package var recorded: [KarteRecordedEvent] = []
        /// Local ids of events that need keeping no more: answered, refused, or given up.
        package var finished: [String] = []

        package var isEmpty: Bool { self.recorded.isEmpty && self.finished.isEmpty }
    }

    /// `visitorID` is the persisted one (or a new ``KarteID``); `original_pv_id` is drawn from `random`.
    package init(configuration: Configuration, visitorID: String, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.visitorID = visitorID
        self.random = random
        self.originalPVID = KarteID.random(using: &self.random)
        self.pvID = self.originalPVID
    }

    /// The keys an event tracked now is stamped with.
    package var keys: KarteKeys { KarteKeys(visitorID: self.visitorID, pvID: self.pvID, originalPVID: self.originalPVID) }

    package var pendingEventCount: Int { self.pending.count }
    package var requestsOutstanding: Int { self.inFlight.count + self.waitingToRetry.count }

    /// Records an event after checking its field names; it goes out within the batching window.
    package mutating func track(_ event: KarteEvent, now: UnixTime) throws(KarteFieldError) -> [Action] {
        try event.validate()
        return self.record(event, now: now)
    }

    /// Renews the pv_id without an event (a screen boundary the application marks itself, the ask of
    /// plaidev/karte-android-sdk#30): always a soft reset.
    package mutating func markBoundary() -> [Action] {
        [.pageChanged(self.renewPV(reset: true))]
    }

    mutating func renewPV(reset: Bool) -> KartePageChange {
        let previous = self.pvID
        self.pvID = KarteID.random(using: &self.random)
        return KartePageChange(previousPVID: previous, pvID: self.pvID, originalPVID: self.originalPVID, isReset: reset)
    }

    mutating func record(_ event: KarteEvent, now: UnixTime) -> [Action] {
        var recorded = KarteRecordedEvent(event: event, keys: self.keys, date: now)
        self.nextEventNumber += 1
        recorded.localID = "\(self.originalPVID)-\(self.nextEventNumber)"
        self.journal.recorded.append(recorded)
        self.pending.append(recorded)
        let group = self.pending.filter { $0.keys == recorded.keys }
        if group.count >= self.configuration.maximumEventsPerRequest {
            return self.flush(only: recorded.keys)
        }
        guard !self.timers.isArmed(.flush) else { return [] }
        return [.arm(self.timers.arm(.flush), after: self.configuration.batchWindow)]
    }

    /// Sends the pending events (of one keys group, or all), grouped by keys in order of first tracking and
    /// cut into requests of at most ``Configuration/maximumEventsPerRequest``.
    mutating func flush(only keys: KarteKeys? = nil) -> [Action] {
        var groups: [(KarteKeys, [KarteRecordedEvent])] = []
        var kept: [KarteRecordedEvent] = []
        for event in self.pending {
            if let keys, event.keys != keys {
                kept.append(event)
            } else if let index = groups.firstIndex(where: { $0.0 == event.keys }) {
                groups[index].1.append(event)
            } else {
                groups.append((event.keys, [event]))
            }
        }
        self.pending = kept
        var actions: [Action] = []
        let size = self.configuration.maximumEventsPerRequest
        for (keys, events) in groups {
            for start in stride(from: 0, to: events.count, by: size) {
                self.nextRequestID += 1
                let request = KarteTrackRequest(id: self.nextRequestID, keys: keys, events: Array(events[start..<min(start + size, events.count)]))
                actions.append(self.send(request))
            }
        }
        return actions
    }

    mutating func send(_ request: KarteTrackRequest) -> Action {
        self.inFlight[request.id] = request
        return .send(request, body: request.body(appInfo: self.configuration.appInfo).encoded())
    }

    /// A timer the driver ran for this machine fired; a stale one does nothing.
    package mutating func timerFired(_ id: TimerID<TimerKind>) -> [Action] {
        guard self.timers.fire(id) else { return [] }
        switch id.kind {
        case .flush:
            return self.flush()
        case .retry(let requestID):
            guard var request = self.waitingToRetry.removeValue(forKey: requestID) else { return [] }
            request.attempt += 1
            return [self.send(request)]
        }
    }

    /// The server answered request `requestID` with an HTTP status and a body (already un-gzipped).
    package mutating func requestCompleted(_ requestID: UInt64, status: Int, body: [UInt8]) -> [Action] {
        guard let request = self.inFlight.removeValue(forKey: requestID) else { return [] }
        if (200..<300).contains(status) || (400..<500).contains(status) { self.finish(request) }
        switch status {
        case 200..<300:
            do {
                let response = try KarteTrackResponse.decode(body, sizeLimit: self.configuration.responseSizeLimit)
                return [.responseReceived(request: request, response: response, isRetry: request.isRetry)]
            } catch {
                return [.responseUnreadable(request: request, error: error)]
            }
        case 400..<500:
            return [.dropped(request: request, reason: "HTTP status \(status): the request is refused and not retried")]
        default:
            return self.retry(request, after: "HTTP status \(status)")
        }
    }

    /// The request failed in a way that counts against its retries (an answer that could not be used, a
    /// body that could not be made).
    package mutating func requestFailed(_ requestID: UInt64, reason: String) -> [Action] {
        guard let request = self.inFlight.removeValue(forKey: requestID) else { return [] }
        return self.retry(request, after: reason)
    }

    /// The request got no answer at all: the name did not resolve, no connection could be made, or nothing
    /// came back in time. It spends no retry (see the type's notes), unless its oldest event was tracked
    /// more than ``Configuration/maximumUnansweredWait`` before `now`.
    package mutating func requestUnanswered(_ requestID: UInt64, reason: String, now: UnixTime) -> [Action] {
        guard let request = self.inFlight.removeValue(forKey: requestID) else { return [] }
        let oldest = request.events.map(\.date).min() ?? now
        guard now - oldest <= self.configuration.maximumUnansweredWait else {
            self.finish(request)
            let hours = Int(self.configuration.maximumUnansweredWait.components.seconds / 3600)
            return [.dropped(request: request, reason: "\(reason); no answer for \(hours) h, given up")]
        }
        return self.retry(request, after: reason, unanswered: true)
    }

    /// The network came back or changed (the host's keep-alive): the requests whose last sending got no
    /// answer go again now instead of at the end of their backoff, as Android's SDK dispatches its queue
    /// when connectivity returns. Those waiting after an error answer keep their backoff.
    package mutating func networkChanged() -> [Action] {
        var actions: [Action] = []
        for id in self.waitingToRetry.keys.sorted() where self.waitingToRetry[id]?.waitsForNetwork == true {
            _ = self.timers.disarm(.retry(requestID: id))
            guard var request = self.waitingToRetry.removeValue(forKey: id) else { continue }
            request.attempt += 1
            actions.append(self.send(request))
        }
        return actions
    }

    mutating func retry(_ request: KarteTrackRequest, after failure: String, unanswered: Bool = false) -> [Action] {
        guard unanswered || request.retriesSpent < self.configuration.maximumRetries else {
            self.finish(request)
            return [.dropped(request: request, reason: "\(failure), after \(request.retriesSpent) retries")]
        }
        var again = request
        again.waitsForNetwork = unanswered
        if !unanswered { again.retriesSpent += 1 }
        again.events.removeAll { $0.event.name == KarteEventName.fetchVariables }
        self.journal.finished += request.events.filter { $0.event.name == KarteEventName.fetchVariables }.map(\.localID)
        guard !again.events.isEmpty else {
            return [.dropped(request: request, reason: "\(failure); \(KarteEventName.fetchVariables) is not retried")]
        }
        self.waitingToRetry[again.id] = again
        let delay = self.configuration.retryBackoff.ceiling(attempt: request.attempt)
        return [.arm(self.timers.arm(.retry(requestID: again.id)), after: delay)]
    }
}

extension KarteTrackingMachine {
    /// Sends every pending event now, without waiting for the batching window (the channel is stopping).
    package mutating func flushNow() -> [Action] {
        _ = self.timers.disarm(.flush)
        return self.flush()
    }
}

extension KarteTrackingMachine {
    /// The server answered request `requestID` with a 2xx, but its body could not be taken (a damaged gzip
    /// stream, more than the size limit): the events reached KARTE, so the request is over and not
    /// retried, and nothing of the answer is used.
    package mutating func requestUnreadable(_ requestID: UInt64, reason: String) -> [Action] {
        guard let request = self.inFlight.removeValue(forKey: requestID) else { return [] }
        self.finish(request)
        return [.responseUnreadable(request: request, error: KarteDecodeError(problem: reason))]
    }
}

extension KarteTrackingMachine {
    /// Requests sent and not answered yet (those waiting for a retry are not counted).
    package var requestsInFlight: Int { self.inFlight.count }
}

extension KarteTrackingMachine {
    mutating func finish(_ request: KarteTrackRequest) {
        self.journal.finished += request.events.map(\.localID)
    }

    /// What changed for the driver's store since it last asked: events to keep, events to forget.
    package mutating func takeJournal() -> Journal {
        defer { self.journal = Journal() }
        return self.journal
    }

    /// Sends again the events a previous run kept but never saw answered (it crashed or was killed): as
    /// retries (`_retry: true`, their answers never shown), grouped by their own keys in the order they
    /// were tracked, at most ``Configuration/maximumEventsPerRequest`` a request. `_fetch_variables` is
    /// not retried: it is finished at once.
    package mutating func resend(_ events: [KarteRecordedEvent]) -> [Action] {
        var groups: [(KarteKeys, [KarteRecordedEvent])] = []
        for event in events.sorted(by: { $0.date < $1.date }) {
            guard event.event.name != KarteEventName.fetchVariables else {
                self.journal.finished.append(event.localID)
                continue
            }
            if let index = groups.firstIndex(where: { $0.0 == event.keys }) {
                groups[index].1.append(event)
            } else {
                groups.append((event.keys, [event]))
            }
        }
        var actions: [Action] = []
        let size = self.configuration.maximumEventsPerRequest
        for (keys, events) in groups {
            for start in stride(from: 0, to: events.count, by: size) {
                self.nextRequestID += 1
                let request = KarteTrackRequest(
                    id: self.nextRequestID,
                    keys: keys,
                    events: Array(events[start..<min(start + size, events.count)]),
                    attempt: 1
                )
                actions.append(self.send(request))
            }
        }
        return actions
    }
}
