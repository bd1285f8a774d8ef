/// One track request: one (visitor, pv_id, original_pv_id) group and at most ten of its events. The
/// machine keeps it until its answer arrives, because that answer is matched to a screen only through the
/// request (its ``keys``): the server does not echo pv ids.
public struct KarteTrackRequest: Sendable, Hashable {
    /// The machine's number for it; a retry keeps the number and counts up ``attempt``.
    public var id: UInt64
    public var keys: KarteKeys
    public var events: [KarteRecordedEvent]
    /// 0 for the first sending, n for the n-th retry.
    public var attempt: Int

    public init(id: UInt64, keys: KarteKeys, events: [KarteRecordedEvent], attempt: Int = 0) {
        self.id = id
        self.keys = keys
        self.events = events
        self.attempt = attempt
    }

    /// A retried request's events carry `_retry: true`, and its response is never used to show anything.
    public var isRetry: Bool { self.attempt > 0 }

    public var eventNames: [String] { self.events.map(\.event.name) }

    public func body(appInfo: KarteAppInfo) -> KarteTrackBody {
        KarteTrackBody(keys: self.keys, appInfo: appInfo, events: self.events, retry: self.isRetry)
    }
}

/// A new pv_id: after a `view` or a marked boundary. ``isReset`` says whether shown actions are reset
/// (softly): not for the first view of the run, whose old pv_id was still the original (iOS
/// `PvService.changePv`), always for a marked boundary.
public struct KartePageChange: Sendable, Hashable {
    public var previousPVID: String
    public var pvID: String
    public var originalPVID: String
    public var isReset: Bool

    public init(previousPVID: String, pvID: String, originalPVID: String, isReset: Bool) {
        self.previousPVID = previousPVID
        self.pvID = pvID
        self.originalPVID = originalPVID
        self.isReset = isReset
    }
}
