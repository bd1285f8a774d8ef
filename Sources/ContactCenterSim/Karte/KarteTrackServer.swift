import Synchronization

/// The simulator's KARTE track endpoint, on the simulator's HTTP port: `POST /v0/native/track` as KARTE's
/// servers answer it (karte.md §1), with scripted campaigns instead of KARTE's segments, every event
/// recorded, and faults to inject. It reads the protocol on its own and shares no code with the plugin's
/// codec (`KarteCore`): a misreading shared by both sides would pass every test.
///
/// ```swift
/// let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
/// // point the plugin at simulator.karte.baseURL with app key simulator.karte.appKey
/// let open = try await simulator.karte.waitForEvent(named: "message_open", timeout: .seconds(10))
/// ```
package final class KarteTrackServer: Sendable {
    /// The track path; a client appends it to ``baseURL``.
    static let trackPath = "/v0/native/track"

    let now: @Sendable () -> Double
    /// `http://127.0.0.1:PORT`.
    let httpBase: @Sendable () -> String
    let state: Mutex<State>

    struct State {
        var settings: KarteServerSettings
        /// Answers given per campaign id since the campaigns were last set, for ``KarteCampaign/times``.
        var answers: [String: Int] = [:]
        /// Actions issued so far: the `n` of each action id `<campaign id>-<n>`, never reused.
        var actionsIssued = 0
        var requestsReceived = 0
        var events: [KarteRecordedEvent] = []
        var requests: [KarteRecordedRequest] = []
        var fault: (fault: KarteFault, remaining: Int)?
        var appInfo: GMSJSON?
    }

    init(settings: KarteServerSettings, now: @escaping @Sendable () -> Double, httpBase: @escaping @Sendable () -> String) {
        self.state = Mutex(State(settings: settings))
        self.now = now
        self.httpBase = httpBase
    }

    // MARK: Addresses

    /// `http://127.0.0.1:PORT`: the SDKs' `karte_base_url`, to which they append `/v0/native/track`.
    package var baseURL: String { self.httpBase() }

    /// `http://127.0.0.1:PORT/v0/native/track`.
    package var trackURL: String { self.baseURL + Self.trackPath }

    /// The app key track requests must carry.
    package var appKey: String { self.state.withLock { $0.settings.appKey } }

    // MARK: Inspection

    /// Every event received, oldest first.
    package var events: [KarteRecordedEvent] { self.state.withLock { $0.events } }

    /// Every track request received, answered or not, oldest first.
    package var requests: [KarteRecordedRequest] { self.state.withLock { $0.requests } }

    /// The `app_info` of the newest request that had one, as JSON text (keys sorted).
    package var lastAppInfoJSON: String? {
        self.state.withLock { $0.appInfo }.map { String(decoding: $0.encoded, as: UTF8.self) }
    }

    package func clearEvents() { self.state.withLock { $0.events.removeAll() } }

    package func clearRequests() { self.state.withLock { $0.requests.removeAll() } }

    /// Waits for an event named `name` (the oldest one, once there is one) from request `after` on.
    package func waitForEvent(named name: String, after request: Int = 0, timeout: Duration) async throws -> KarteRecordedEvent {
        try await poll(timeout: timeout, failure: .timeout("no KARTE event \"\(name)\" arrived", timeout)) {
            self.events.first { $0.eventName == name && $0.request > request }
        }
    }

    // MARK: Script

    package var campaigns: [KarteCampaign] { self.state.withLock { $0.settings.campaigns } }

    /// Replaces the campaigns; their answer counts (``KarteCampaign/times``) start again.
    package func setCampaigns(_ campaigns: [KarteCampaign]) {
        self.state.withLock { state in
            state.settings.campaigns = campaigns
            state.answers.removeAll()
        }
    }

    /// Whether answers are gzipped for requests that send `Accept-Encoding: gzip`.
    package var gzipAnswers: Bool {
        get { self.state.withLock { $0.settings.gzipAnswers } }
        set { self.state.withLock { $0.settings.gzipAnswers = newValue } }
    }

    // MARK: Faults

    /// Makes the next `count` track requests with a valid app key and body misbehave (replacing any fault
    /// still pending).
    package func inject(_ fault: KarteFault, count: Int = 1) {
        self.state.withLock { $0.fault = count > 0 ? (fault, count) : nil }
    }

    package func clearFaults() { self.state.withLock { $0.fault = nil } }
}
