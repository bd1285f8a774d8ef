package import AttendantPluginAPI
import CoreMetrics
import Prometheus
import Synchronization

/// The daemon's figures, kept through swift-metrics in a Prometheus registry of this daemon's own, and
/// written out in the Prometheus text format (`attendantctl metrics`, the `[metrics] listen` endpoint).
///
/// No global `MetricsSystem.bootstrap`: every handle is made with `factory:`, so several daemons in one
/// process (the tests) keep apart. A part built without metrics (a test's) gets a private instance.
///
/// Labels are `channel`, `plugin`, `state`, `kind`, `outcome` and `class`: never a contact's address or text.
/// The families, as the Metrics section of docs/operations.md lists them:
///
/// | name | type | labels |
/// | --- | --- | --- |
/// | `attendant_channel_state` | gauge, 1 for the current state | channel, plugin, state |
/// | `attendant_channel_listening_seconds_total` | counter | channel |
/// | `attendant_listen_attempts_total` | counter | channel |
/// | `attendant_listen_failures_total` | counter | channel, class |
/// | `attendant_reconnects_total` | counter | channel |
/// | `attendant_token_renewals_total` | counter | channel |
/// | `attendant_token_renewal_failures_total` | counter | channel, class |
/// | `attendant_token_expiry_seconds` | gauge | channel |
/// | `attendant_contacts_total` | counter | channel, kind, outcome |
/// | `attendant_alert_latency_seconds` | histogram | channel |
package final class DaemonMetrics: Sendable {
    package enum Name {
        package static let channelState = "attendant_channel_state"
        package static let listeningSeconds = "attendant_channel_listening_seconds_total"
        package static let listenAttempts = "attendant_listen_attempts_total"
        package static let listenFailures = "attendant_listen_failures_total"
        package static let reconnects = "attendant_reconnects_total"
        package static let tokenRenewals = "attendant_token_renewals_total"
        package static let tokenRenewalFailures = "attendant_token_renewal_failures_total"
        package static let tokenExpiry = "attendant_token_expiry_seconds"
        package static let contacts = "attendant_contacts_total"
        package static let alertLatency = "attendant_alert_latency_seconds"
    }

    /// The `outcome` of a contact's arrival in `attendant_contacts_total`; the others are ``ContactOutcome``s.
    package static let rang = "rang"

    /// Every state `attendant_channel_state` has a series for.
    static let states: [ChannelStatus.State] = [.starting, .listening, .background, .recovering, .failed, .stopping, .stopped]

    /// Alert latency buckets: the target is under a millisecond (DESIGN.md section 8), a held alert (do
    /// not disturb, no notification server) takes seconds or more.
    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(5), .seconds(30),
    ]

    /// At most this many contacts wait for their alert: past it the oldest waits are forgotten. A contact
    /// keeps its wait after it ends (its alert may still be on its way); one never shown (do not disturb,
    /// no notification server) waits until it is pushed out.
    static let pendingAlertLimit = 1_000

    /// What changes between two readings: the seconds listening so far and to token expiry are worked out
    /// when the figures are read.
    private struct Live {
        var listeningSince: [String: ContinuousClock.Instant] = [:]
        var states: [String: ChannelStatus.State] = [:]
        var tokenExpiry: [String: UnixTime] = [:]
        var arrivals: [AlertKey: ContinuousClock.Instant] = [:]
        var arrivalOrder: [AlertKey] = []
        /// Every series written for each channel, so that ``forget(channel:)`` can take them out.
        var series: [String: Set<Series>] = [:]
    }

    /// One series: its kind, name and labels (the first label is always the channel).
    private struct Series: Hashable {
        enum Kind: Hashable { case counter, floatingPointCounter, gauge, timer }
        var kind: Kind
        var label: String
        var dimensions: [String]
    }

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let wallClock: @Sendable () -> UnixTime
    private let clock = ContinuousClock()
    private let live = Mutex(Live())

    package init(wallClock: @escaping @Sendable () -> UnixTime = SystemWallClock.now) {
        var factory = PrometheusMetricsFactory(registry: self.registry)
        factory.durationHistogramBuckets[Name.alertLatency] = Self.latencyBuckets
        self.factory = factory
        self.wallClock = wallClock
    }

    // MARK: Channels

    /// The channel is now in `state`; the listening time adds up while it is `listening`.
    package func channelState(_ channel: String, plugin: String, _ state: ChannelStatus.State) {
        let now = self.clock.now
        let (previous, listened) = self.live.withLock { live -> (ChannelStatus.State?, Duration?) in
            let previous = live.states.updateValue(state, forKey: channel)
            var listened: Duration? = nil
            if state != .listening, let since = live.listeningSince.removeValue(forKey: channel) {
                listened = since.duration(to: now)
            } else if state == .listening, live.listeningSince[channel] == nil {
                live.listeningSince[channel] = now
            }
            return (previous, listened)
        }
        if let listened { self.addListening(listened, channel: channel) }
        guard previous != state else { return }
        // Every state's series, so that a query for one state finds a 0 rather than nothing.
        for candidate in Self.states {
            self.gauge(Name.channelState, channel, [("plugin", plugin), ("state", candidate.rawValue)]).record(candidate == state ? 1 : 0)
        }
    }

    /// The supervisor asked the channel to listen.
    package func listenAttempted(channel: String) {
        self.counter(Name.listenAttempts, channel).increment()
    }

    /// A listen attempt failed with an error of `errorClass` (``ChannelError/Code``: transient, authentication, …).
    package func listenFailed(channel: String, errorClass: String) {
        self.counter(Name.listenFailures, channel, [("class", errorClass)]).increment()
    }

    /// The channel listens again after it had listened and lost it (dropped, keep-alive failed, token refused).
    package func reconnected(channel: String) {
        self.counter(Name.reconnects, channel).increment()
    }

    // MARK: Tokens

    /// A token renewal worked; `expiresAt` nil: the token does not say when it expires.
    package func tokenRenewed(channel: String, expiresAt: UnixTime?) {
        self.counter(Name.tokenRenewals, channel).increment()
        self.live.withLock { $0.tokenExpiry[channel] = expiresAt }
    }

    /// A token renewal failed with an error of `errorClass` (``TokenError/Code``: source, timeout, …).
    package func tokenRenewalFailed(channel: String, errorClass: String) {
        self.counter(Name.tokenRenewalFailures, channel, [("class", errorClass)]).increment()
    }

    // MARK: Contacts and alerts

    /// A contact arrived at the daemon (`outcome` ``rang``) or ended (a ``ContactOutcome``).
    package func contact(channel: String, kind: ContactKind, outcome: String) {
        self.counter(Name.contacts, channel, [("kind", kind.rawValue), ("outcome", outcome)]).increment()
    }

    /// The daemon received a contact or in-app action whose alert is `key`: the alert latency runs from now.
    package func alertAwaited(_ key: AlertKey) {
        let now = self.clock.now
        self.live.withLock { live in
            guard live.arrivals.updateValue(now, forKey: key) == nil else { return }
            live.arrivalOrder.append(key)
            if live.arrivalOrder.count > Self.pendingAlertLimit {
                let dropped = live.arrivalOrder.removeFirst()
                live.arrivals[dropped] = nil
            }
        }
    }

    /// The notification server has shown the alert `key` (Notify answered): records the latency the
    /// first time, for an alert awaited with ``alertAwaited(_:)``.
    package func alertShown(_ key: AlertKey) {
        let now = self.clock.now
        let arrival = self.live.withLock { live -> ContinuousClock.Instant? in
            guard let arrival = live.arrivals.removeValue(forKey: key) else { return nil }
            live.arrivalOrder.removeAll { $0 == key }
            return arrival
        }
        guard let arrival else { return }
        let latency = arrival.duration(to: now)
        self.timer(Name.alertLatency, key.channel)
            .recordNanoseconds(latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000)
    }

    // MARK: Reading

    /// Every figure in the Prometheus text format (version 0.0.4), the time-dependent ones brought up to now.
    package func prometheusText() -> String {
        String(decoding: self.prometheusBytes(), as: UTF8.self)
    }

    /// ``prometheusText()`` as UTF-8 bytes, for the HTTP endpoint.
    package func prometheusBytes() -> [UInt8] {
        self.bringUpToDate()
        return self.registry.emitToBuffer()
    }

    /// Adds the listening time so far, and sets the seconds to each token's expiry.
    private func bringUpToDate() {
        let now = self.clock.now
        let wallNow = self.wallClock()
        let (listened, expiries) = self.live.withLock { live -> ([(String, Duration)], [(String, UnixTime)]) in
            var listened: [(String, Duration)] = []
            for (channel, since) in live.listeningSince {
                listened.append((channel, since.duration(to: now)))
                live.listeningSince[channel] = now
            }
            return (listened, live.tokenExpiry.map { ($0.key, $0.value) })
        }
        for (channel, duration) in listened { self.addListening(duration, channel: channel) }
        for (channel, expiresAt) in expiries {
            let seconds = (expiresAt - wallNow).seconds
            self.gauge(Name.tokenExpiry, channel).record(seconds)
        }
    }

    // MARK: Channels that go

    /// Takes every series of `channel` out of the figures: the channel was removed from the configuration
    /// (a reload), so a scrape no longer reports its last values as if it were still there.
    package func forget(channel: String) {
        let series = self.live.withLock { live -> Set<Series> in
            live.listeningSince[channel] = nil
            live.states[channel] = nil
            live.tokenExpiry[channel] = nil
            for key in live.arrivalOrder where key.channel == channel { live.arrivals[key] = nil }
            live.arrivalOrder.removeAll { $0.channel == channel }
            return live.series.removeValue(forKey: channel) ?? []
        }
        for one in series {
            let dimensions = Self.pairs(one.dimensions)
            switch one.kind {
            case .counter: CoreMetrics.Counter(label: one.label, dimensions: dimensions, factory: self.factory).destroy()
            case .floatingPointCounter: CoreMetrics.FloatingPointCounter(label: one.label, dimensions: dimensions, factory: self.factory).destroy()
            case .gauge: CoreMetrics.Gauge(label: one.label, dimensions: dimensions, factory: self.factory).destroy()
            case .timer: CoreMetrics.Timer(label: one.label, dimensions: dimensions, factory: self.factory).destroy()
            }
        }
    }

    // MARK: Handles

    private func counter(_ label: String, _ channel: String, _ more: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: label, dimensions: self.remember(.counter, label, channel, more), factory: self.factory)
    }

    private func floatingPointCounter(_ label: String, _ channel: String) -> CoreMetrics.FloatingPointCounter {
        CoreMetrics.FloatingPointCounter(label: label, dimensions: self.remember(.floatingPointCounter, label, channel, []), factory: self.factory)
    }

    private func gauge(_ label: String, _ channel: String, _ more: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: self.remember(.gauge, label, channel, more), factory: self.factory)
    }

    private func timer(_ label: String, _ channel: String) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: self.remember(.timer, label, channel, []), factory: self.factory)
    }

    /// The dimensions of a series of `channel`, noted for ``forget(channel:)``.
    private func remember(_ kind: Series.Kind, _ label: String, _ channel: String, _ more: [(String, String)]) -> [(String, String)] {
        let dimensions = [("channel", channel)] + more
        let series = Series(kind: kind, label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        self.live.withLock { _ = $0.series[channel, default: []].insert(series) }
        return dimensions
    }

    private static func pairs(_ flat: [String]) -> [(String, String)] {
        stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }
    }

    private func addListening(_ duration: Duration, channel: String) {
        self.floatingPointCounter(Name.listeningSeconds, channel).increment(by: duration.seconds)
    }
}
