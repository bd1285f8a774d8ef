/// One track request: one (visitor, pv_id, original_pv_id) group and at most ten of its events. The
/// machine keeps it until its answer arrives, because that answer is matched to a screen only through the
/// request (its ``keys``): the server does not echo pv ids.
package struct KarteTrackRequest: Sendable, Hashable {
    /// The machine's number for it; a retry keeps the number and counts up ``attempt``.
    package var id: UInt64
    package var keys: KarteKeys
    package var events: [KarteRecordedEvent]
    /// 0 for the first sending, n for the n-th retry.
    package var attempt: Int
    /// Retries spent on failures that count (``KarteTrackingMachine/Configuration/maximumRetries``): answers
    /// that were errors. Sendings that got no answer at all spend none.
    package var retriesSpent = 0
    /// The last sending got no answer (the network, not the server): a network change sends it again at
    /// once.
    package var waitsForNetwork = false

    package init(id: UInt64, keys: KarteKeys, events: [KarteRecordedEvent], attempt: Int = 0) {
        self.id = id
        self.keys = keys
        self.events = events
        self.attempt = attempt
    }

    /// A retried request's events carry `_retry: true`, and its response is never used to show anything.
    package var isRetry: Bool { self.attempt > 0 }

    package var eventNames: [String] { self.events.map(\.event.name) }

    package func body(appInfo: KarteAppInfo) -> KarteTrackBody {
        KarteTrackBody(keys: self.keys, appInfo: appInfo, events: self.events, retry: self.isRetry)
    }
}

/// A new pv_id: after a `view` or a marked boundary. ``isReset`` says whether shown actions are reset
/// (softly): not for the first view of the run, whose old pv_id was still the original (iOS
/// `PvService.changePv`), always for a marked boundary.
package struct KartePageChange: Sendable, Hashable {
    package var previousPVID: String
    package var pvID: String
    package var originalPVID: String
    package var isReset: Bool

    package init(previousPVID: String, pvID: String, originalPVID: String, isReset: Bool) {
        self.previousPVID = previousPVID
        self.pvID = pvID
        self.originalPVID = originalPVID
        self.isReset = isReset
    }
}
