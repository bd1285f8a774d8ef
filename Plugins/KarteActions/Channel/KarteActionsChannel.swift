import AttendantPluginAPI
import AttendantPluginKit
import KarteCore
import Synchronization

/// A KARTE in-app messaging channel: KarteCore's pure ``KarteSession`` (its tracking and actions
/// machines) driven on the host's network, clock and store by the kit's ``SessionDriver``: the lock, the
/// timers, the callers of requests, and one ordered worker for the host's events and the store's writes,
/// which ``run()`` runs for the channel's life; the track requests go out beside it, several at once (a
/// slow answer must not hold a later `view` back).
final class KarteActionsChannel: Channel {
    typealias Session = KarteSession
    typealias StoreKey = KarteSession.StoreKey

    static let pluginVersion = "0.1.0"
    static let bundleID = "org.attendant.Attendant1"

    let configuration: KarteActionsConfiguration
    let host: any ChannelHost
    let driver: SessionDriver<Session>

    init(configuration: KarteActionsConfiguration, host: any ChannelHost) {
        self.configuration = configuration
        self.host = host
        self.driver = SessionDriver(host: host, prefix: "karte-actions")
        let settings = Session.Settings(suppressPersists: configuration.suppressPersists, fetchTimeout: configuration.requestTimeout + .seconds(1))
        self.driver.load(Session(settings: settings))
    }

    func run() async {
        await self.driver.run { work in await self.carryOut(work) }
    }

    private func carryOut(_ work: Session.Work) async {
        switch work {
        case .send(let requestID, let body, let appKey):
            self.driver.concurrently {
                let outcome = await self.deliver(body, appKey: appKey)
                let now = self.host.now()
                return { $0.completed(requestID, outcome, now: now) }
            }
        case .open(let requestID, let url):
            self.driver.concurrently {
                let outcome = await self.host.openURL(url)
                let now = self.host.now()
                return { $0.opened(requestID, outcome, now: now) }
            }
        }
    }

    /// What attendantctl, D-Bus clients and notification buttons ask (KarteCore's ``KarteCommand``).
    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        let command = try KarteCommand(request)
        let now = self.host.now()
        return try await self.driver.request { session, id throws(ChannelError) in try session.perform(command, id, now: now) }
    }

    // MARK: Channel

    func listen() async throws {
        let appKey = try await self.appKey()
        let stored = try await self.storedValues()
        let visitorID = try await self.visitorID(stored[StoreKey.visitorID])
        let systemInfo = LinuxMachineInfo.systemInfo(bundleID: Self.bundleID)
        let appInfo = KarteAppInfo(
            versionName: self.configuration.appVersion,
            versionCode: self.configuration.appVersion,
            sdkVersion: Self.pluginVersion,
            system: systemInfo
        )
        let start = Session.Start(
            appKey: appKey,
            appInfo: appInfo,
            visitorID: visitorID,
            appVersion: self.configuration.appVersion,
            stored: stored,
            startView: self.configuration.startView
        )
        let now = self.host.now()
        self.driver.step { $0.start(start, trackURL: self.configuration.trackURL, now: now) }
    }

    /// What is tracked goes out, and the daemon waits a little for the answers (KarteCore decides).
    func stopListening() async {
        let now = self.host.now()
        _ = try? await self.driver.request { session, id in session.stop(id, grace: Self.stopGrace, now: now) }
        await self.driver.drain()
    }

    /// How long a stopping channel waits for its last requests' answers.
    static let stopGrace: Duration = .seconds(3)

    func keepAlive() async throws {
        // Nothing to keep: the track API is request and answer. A refused app key shows in the answers.
        // The host calls this at once when the network comes back, so what got no answer goes again now.
        let now = self.host.now()
        self.driver.step { $0.networkChanged(now: now) }
        guard self.driver.withSession({ $0.listening && $0.appKey != nil }) == true else {
            throw ChannelError(.transient, "karte-actions: not listening")
        }
    }

    func tokenDidChange(_ token: ChannelToken) async {
        guard KarteAppKey.isValid(token.value) else {
            self.host.logger.error(
                "karte-actions: the new token is not a KARTE app key (\(token.value.count) characters, 32 expected); keeping the old one"
            )
            return
        }
        _ = self.driver.withSession { $0.appKey = token.value }
    }

    func applicationStateDidChange(_ state: ApplicationState) async {
        let now = self.host.now()
        self.driver.step { $0.applicationState(background: state == .background, now: now) }
    }

    // MARK: App key and ids

    /// The app key: the channel's token, else `app-key` in its secrets (KarteCore's ``KarteAppKey`` checks).
    private func appKey() async throws -> String {
        if let key = try KarteAppKey.fromToken(await self.host.tokenState()) { return key }
        let secret: String?
        do {
            secret = try await self.host.secrets.secret(forKey: KarteAppKey.secretName)
        } catch {
            throw ChannelError(.configuration, "karte-actions: cannot read the secrets file: \(error)")
        }
        return try KarteAppKey.fromSecrets(secret, channelName: self.host.channelName)
    }

    /// The channel's store, read once at start.
    private func storedValues() async throws -> [String: String] {
        do {
            return try await self.host.store.allValues()
        } catch {
            throw ChannelError(.transient, "karte-actions: cannot read the channel's state database: \(error)")
        }
    }

    /// The visitor id kept from before, else a new one, kept for the next start.
    private func visitorID(_ stored: String?) async throws -> String {
        if let stored, !stored.isEmpty { return stored }
        var random = SystemRandomNumberGenerator()
        let made = KarteID.random(using: &random)
        do {
            try await self.host.store.setValue(made, forKey: StoreKey.visitorID)
        } catch {
            throw ChannelError(.configuration, "karte-actions: cannot keep the visitor id in the state database: \(error)")
        }
        return made
    }
}
