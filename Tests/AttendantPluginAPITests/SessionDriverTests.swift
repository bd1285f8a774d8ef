import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// The kit's ``SessionDriver`` with a toy session of the tests' own, on the test kit's in-memory host and
/// manual clock: when requests return and what they hear, the order of work, events and log lines, and
/// what a stop leaves behind.
@Suite(.timeLimit(.minutes(1))) struct SessionDriverTests {
    /// Counts what is added; a request waits until the count reaches its target, for at most 5 s.
    struct Counter: ChannelSession {
        enum Timer: Hashable, Sendable { case deadline(UInt64) }
        typealias Action = SessionAction<Timer, String>

        var count = 0
        var waiting: [UInt64: Int] = [:]
        var forgotten: [UInt64] = []

        mutating func add(_ amount: Int) -> [Action] {
            self.count += amount
            var actions: [Action] = [.work("added \(amount)"), .emit(.chatStateChanged(.connecting)), .log(.info, "count \(self.count)")]
            for (id, target) in self.waiting.sorted(by: { $0.key < $1.key }) where target <= self.count {
                self.waiting[id] = nil
                actions += [.cancelTimer(.deadline(id)), .replied(id, .success(.fields(["count": String(self.count)])))]
            }
            return actions
        }

        mutating func wait(for target: Int, id: UInt64) throws(ChannelError) -> [Action] {
            guard target >= 0 else { throw ChannelError(.invalidArgument, "toy: a negative target") }
            if target <= self.count { return [.replied(id, .success(.done))] }
            self.waiting[id] = target
            return [.setTimer(.deadline(id), after: .seconds(5))]
        }

        /// Keeps `value` in the store and the secrets, then works.
        mutating func keep(_ value: String?) -> [Action] {
            [
                .write(StoreWrite(.store, key: "state", value: value, what: "the state")),
                .write(StoreWrite(.secrets, key: "token", value: value, what: "the token")), .work("kept \(value ?? "nothing")"),
            ]
        }

        mutating func timerFired(_ timer: Timer, now: UnixTime) -> [Action] {
            guard case .deadline(let id) = timer, self.waiting.removeValue(forKey: id) != nil else { return [] }
            return [.replied(id, .failure(ChannelError(.transient, "toy: not there in time")))]
        }

        mutating func forgetRequest(_ id: UInt64) {
            self.waiting[id] = nil
            self.forgotten.append(id)
        }
    }

    final class Rig: Sendable {
        let host = InMemoryChannelHost()
        let driver: SessionDriver<Counter>
        /// The work done, each with how many events the host had heard by then.
        let done = Recorder<(String, Int)>()
        let worker: Task<Void, Never>

        init(loaded: Bool = true) {
            let driver = SessionDriver<Counter>(host: self.host, prefix: "toy")
            let host = self.host
            let done = self.done
            self.driver = driver
            self.worker = Task { await driver.run { work in done.add((work, host.events.count)) } }
            if loaded { driver.load(Counter()) }
        }

        func wait(for target: Int) async throws(ChannelError) -> ChannelReply {
            try await self.driver.request { session, id throws(ChannelError) in try session.wait(for: target, id: id) }
        }

        func add(_ amount: Int) {
            self.driver.step { $0.add(amount) }
        }

        deinit { self.worker.cancel() }
    }

    @Test func aRequestReturnsWhenTheSessionRepliesAndWorkEventsAndLogsKeepTheirOrder() async throws {
        let rig = Rig()
        let waiting = Task { try await rig.wait(for: 2) }
        try await eventually("the request is waiting") { rig.driver.withSession { $0.waiting.count } == 1 }
        rig.add(1)
        let (first, eventsBefore) = try await rig.done.next()
        #expect(first == "added 1")
        #expect(eventsBefore == 0, "the event queued after the work waits for it")
        #expect(rig.driver.withSession { $0.waiting.count } == 1, "not there yet")
        rig.add(1)
        #expect(try await waiting.value == .fields(["count": "2"]))
        #expect(try await rig.done.next().1 == 1, "the first step's event came between the two works")
        await rig.driver.drain()
        #expect(rig.host.logRecords.all.filter { $0.level == .info }.map(\.message) == ["count 1", "count 2"])
        #expect(rig.host.manualClock.sleeperCount == 0, "the deadline was cancelled")
    }

    @Test func aRequestAlreadyThereRepliesAtOnceAndOneThatCannotStartThrowsItsError() async throws {
        let rig = Rig()
        #expect(try await rig.wait(for: 0) == .done)
        let error = await #expect(throws: ChannelError.self) { try await rig.wait(for: -1) }
        #expect(error?.message == "toy: a negative target")
        #expect(rig.driver.withSession { $0.waiting.isEmpty } == true)
    }

    @Test func aRequestsDeadlineIsATimerOfTheSession() async throws {
        let rig = Rig()
        let waiting = Task { try await rig.wait(for: 3) }
        await rig.host.manualClock.waitForSleepers(atLeast: 1)
        rig.host.manualClock.advance(by: .seconds(5))
        let error = await #expect(throws: ChannelError.self) { try await waiting.value }
        #expect(error?.message == "toy: not there in time")
    }

    @Test func aCancelledRequestIsForgottenByTheSession() async throws {
        let rig = Rig()
        let waiting = Task { try await rig.wait(for: 3) }
        try await eventually("the request is waiting") { rig.driver.withSession { $0.waiting.count } == 1 }
        waiting.cancel()
        let error = await #expect(throws: ChannelError.self) { try await waiting.value }
        #expect(error?.message == "toy: the request was cancelled")
        #expect(rig.driver.withSession { $0.waiting.isEmpty } == true)
        #expect(rig.driver.withSession { $0.forgotten } == [1])
    }

    @Test func stopTakesALastStepFailsTheWaitingRequestsCancelsTheTimersAndDrains() async throws {
        let rig = Rig()
        let waiting = Task { try await rig.wait(for: 5) }
        try await eventually("the request is waiting") { rig.driver.withSession { $0.waiting.count } == 1 }
        await rig.host.manualClock.waitForSleepers(atLeast: 1)
        await rig.driver.stop(failing: ChannelError(.transient, "toy: stopping")) { $0.add(1) }
        #expect(rig.done.all.map(\.0) == ["added 1"], "the last step's work is done before stop returns")
        let error = await #expect(throws: ChannelError.self) { try await waiting.value }
        #expect(error?.message == "toy: stopping")
        #expect(rig.driver.withSession { $0.forgotten } == [1])
        try await eventually("the deadline's sleep ended") { rig.host.manualClock.sleeperCount == 0 }
    }

    @Test func beforeASessionIsLoadedStepsDoNothingAndRequestsFail() async throws {
        let rig = Rig(loaded: false)
        rig.add(1)
        #expect(rig.driver.withSession { $0.count } == nil)
        let error = await #expect(throws: ChannelError.self) { try await rig.wait(for: 1) }
        #expect(error?.message == "toy: the channel's state is not loaded yet")
        #expect(rig.driver.load(Counter(count: 7)))
        #expect(!rig.driver.load(Counter()), "the first one loaded stays")
        #expect(rig.driver.withSession { $0.count } == 7)
    }
    @Test func anOperationRunsBesideTheBusyWorkerAndItsStepIsTheSessionsNext() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Counter>(host: host, prefix: "toy")
        driver.load(Counter())
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let started = Recorder<String>()
        let worker = Task {
            await driver.run { work in
                started.add(work)
                if work == "added 1" { for await _ in release { break } }
            }
        }
        driver.step { $0.add(1) }
        #expect(try await started.next() == "added 1")
        driver.concurrently { { $0.add(10) } }
        try await eventually("the operation's step ran while the worker was held") { driver.withSession { $0.count } == 11 }
        #expect(started.all == ["added 1"], "the worker is still held on the first work")
        releaser.yield()
        #expect(try await started.next() == "added 10", "the operation's step queued its work behind")
        worker.cancel()
        await worker.value
    }

    @Test func anOperationEndsWithTheChannelsRun() async throws {
        let rig = Rig()
        let cancelled = Recorder<Bool>()
        rig.driver.concurrently {
            try? await rig.host.clock.sleep(for: .seconds(3600))
            cancelled.add(Task.isCancelled)
            return { $0.add(1) }
        }
        await rig.host.manualClock.waitForSleepers(atLeast: 1)
        rig.worker.cancel()
        #expect(try await cancelled.next() == true, "cancelling run() cancelled the operation it ran")
        await rig.worker.value
        #expect(rig.driver.withSession { $0.count } == 1, "its step still reached the session")
    }
    @Test func aSessionsWritesGoToTheStoreOrTheSecretsInOrderWithItsWork() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Counter>(host: host, prefix: "toy")
        driver.load(Counter())
        let seen = Recorder<String>()
        let worker = Task {
            await driver.run { work in
                let stored = (try? await host.store.value(forKey: "state")) ?? nil
                let secret = (try? await host.secrets.secret(forKey: "token")) ?? nil
                seen.add("\(work): store \(stored ?? "-"), secrets \(secret ?? "-")")
            }
        }
        driver.step { $0.keep("one") }
        #expect(try await seen.next() == "kept one: store one, secrets one", "written before the work queued after them")
        #expect(await host.inMemoryStore.allValues() == ["state": "one"], "a secret never reaches the store")
        driver.step { $0.keep(nil) }
        #expect(try await seen.next() == "kept nothing: store -, secrets -", "nil removes")
        worker.cancel()
        await worker.value
    }
    @Test func aWriteThatFailsIsLoggedWithWhatItLosesAndTheWorkGoesOn() async throws {
        let host = InMemoryChannelHost()
        let driver = SessionDriver<Counter>(host: host, prefix: "toy")
        driver.load(Counter())
        let done = Recorder<String>()
        let worker = Task { await driver.run { work in done.add(work) } }
        host.inMemorySecrets.failWrites("no space left on device")
        driver.step { _ in
            [.write(StoreWrite(.secrets, key: "token", value: "t", what: "the token", ifLost: "sign in again after a restart")), .work("after")]
        }
        #expect(try await done.next() == "after")
        let errors = host.logRecords.all.filter { $0.level == .error }.map(\.message)
        #expect(errors == ["toy: could not keep the token in the secrets file: no space left on device; sign in again after a restart"])
        worker.cancel()
        await worker.value
    }
}
