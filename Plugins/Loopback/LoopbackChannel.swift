import AttendantPluginAPI
import AttendantPluginKit

/// A channel that needs no network (see ``LoopbackPluginFactory``), and the shape to copy for a plugin on
/// the kit: every decision is in the pure ``LoopbackSession``, and this class only does the host's work.
///
/// The kit's ``SessionDriver`` holds the session under its lock and carries out what each step returns:
/// it arms the session's timers on the host's clock, answers the callers of ``perform(_:)``, and emits the
/// events, logs the lines, writes the store and does the session's ``LoopbackSession/Work`` one at a time,
/// in order, on its worker. The worker runs in ``run()``, which the host runs for the channel's life and
/// cancels when it drops the channel: the channel starts no task of its own.
final class LoopbackChannel: Channel {
    let host: any ChannelHost
    let driver: SessionDriver<LoopbackSession>

    init(configuration: LoopbackConfiguration, host: any ChannelHost) {
        self.host = host
        self.driver = SessionDriver(host: host, prefix: "loopback")
        self.driver.load(LoopbackSession(configuration: configuration))
    }

    func run() async {
        await self.driver.run { work in await self.carryOut(work) }
    }

    private func carryOut(_ work: LoopbackSession.Work) async {
        switch work {
        case .linger(let delay):
            // On the worker, which only dropping the channel cancels: stopListening() waits for it.
            try? await self.host.clock.sleep(for: delay)
        }
    }

    // MARK: Channel

    func listen() async throws {
        let next = Int(try await self.host.store.value(forKey: "next-contact") ?? "") ?? 1
        try await self.count("listens")
        _ = try await self.ask { session, id in session.listen(id, nextContact: next) }
    }

    /// Returns once the worker has done the session's last step: with `stop-delay`, that long on the host's
    /// clock, whether or not the caller is cancelled (waiting for the worker does not heed cancellation).
    func stopListening() async {
        try? await self.count("stops")
        await self.driver.stop(failing: ChannelError(.transient, "loopback: the channel stopped")) { $0.stop() }
    }

    func keepAlive() async throws {
        guard self.driver.withSession({ $0.listening }) == true else {
            throw ChannelError(.transient, "loopback: keep-alive while not listening")
        }
        try await self.count("keepalives")
    }

    func tokenDidChange(_ token: ChannelToken) async {
        try? await self.count("token-changes")
        try? await self.host.store.setValue(token.expiresAt.map { "\($0)" } ?? "unknown", forKey: "token-expires-at")
    }

    func applicationStateDidChange(_ state: ApplicationState) async {
        try? await self.host.store.setValue(state.rawValue, forKey: "application-state")
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        if case .custom("report", _) = request {
            var fields = try await self.host.store.allValues()
            fields["listening"] = self.driver.withSession({ $0.listening }) == true ? "yes" : "no"
            return .fields(fields)
        }
        let now = self.host.now()
        return try await self.ask { session, id throws(ChannelError) in try session.perform(request, id, now: now) }
    }

    // MARK: Host work

    /// A request to the session that returns once the worker has done what it queued, so its caller finds
    /// its events emitted and its values stored (a `ring` has announced the contact it answers with).
    private func ask(
        _ begin: (inout LoopbackSession, _ id: UInt64) throws(ChannelError) -> [LoopbackSession.Action]
    ) async throws(ChannelError) -> ChannelReply {
        let outcome: Result<ChannelReply, ChannelError>
        do throws(ChannelError) {
            outcome = .success(try await self.driver.request(begin))
        } catch {
            outcome = .failure(error)
        }
        await self.driver.drain()
        return try outcome.get()
    }

    /// What the host told the channel is counted in its store, for `report` and the daemon's tests.
    private func count(_ key: String) async throws {
        let current = Int(try await self.host.store.value(forKey: key) ?? "") ?? 0
        try await self.host.store.setValue(String(current + 1), forKey: key)
    }
}
