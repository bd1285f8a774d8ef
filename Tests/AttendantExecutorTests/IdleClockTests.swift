import Foundation
import Synchronization
import Testing

@testable import AttendantExecutor

/// An `IdleExecutor` of the test's own, running its loop on a thread of its own (the test process keeps
/// Swift's default executors; the daemon installs this one as both).
private final class Loop: Sendable {
    let executor = IdleExecutor()

    init() {
        Thread.detachNewThread { [executor] in try? executor.run() }
    }

    deinit { self.executor.stop() }

    /// Nanoseconds from now on the continuous clock.
    func deadline(in milliseconds: Int64) -> Int64 {
        IdleExecutor.now(.continuous) + milliseconds * 1_000_000
    }

    /// Runs `body` as a task on the loop's thread, as every task of the daemon runs.
    func task<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        Task(executorPreference: self.executor) { try await body() }
    }

    /// Waits up to 60 s. While the whole suite runs, tests that block hold Swift's cooperative threads (two
    /// on this machine) for seconds, so this poll may not run for a long while: what it waits to see must
    /// stay true that long (the sleeps below are 20 s and longer).
    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while !condition() {
            try #require(clock.now < deadline, "timed out waiting for \(what)")
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

@Suite struct IdleClockTests {
    @Test func aSleepEndsAtItsDeadline() async throws {
        let loop = Loop()
        let clock = IdleClock(executor: loop.executor)
        let start = ContinuousClock.now
        try await loop.task { try await clock.sleep(for: .milliseconds(50)) }.value
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(loop.executor.scheduledCount == 0)
    }

    @Test func aCancelledSleepThrowsAtOnceAndNeverWakesTheLoop() async throws {
        let loop = Loop()
        let clock = IdleClock(executor: loop.executor)
        // Long enough that the timer is still there when a starved poll looks (see waitUntil).
        let sleeper = loop.task { try await clock.sleep(for: .seconds(600)) }
        try await loop.waitUntil("the sleep's timer") { loop.executor.scheduledCount == 1 }
        // Cancelled from a task on the loop's thread, as the daemon's timers are.
        _ = try await loop.task { sleeper.cancel() }.value
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(loop.executor.scheduledCount == 0, "the cancelled sleep is still in the timer heap")

        // The timer left the heap, which is what arms the loop's timerfd; and nothing wakes the loop now.
        let before = loop.executor.wakeups.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(700))
        #expect(loop.executor.wakeups.load(ordering: .relaxed) == before, "the loop woke for a cancelled sleep")
    }

    @Test func aSleepInACancelledTaskThrowsWithoutScheduling() async throws {
        let loop = Loop()
        let clock = IdleClock(executor: loop.executor)
        let result = await loop.task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(loop.executor.scheduledCount == 0)
    }

    /// Why `IdleClock` exists: a cancelled `Task.sleep` leaves its job with the executor until the old
    /// deadline (Swift 6.3's custom-executor SPI has no call to take it back). Should a toolchain start
    /// dropping them, this fails, and `IdleClock` can go.
    @Test func aCancelledTaskSleepStaysScheduledUntilItsDeadline() async throws {
        let loop = Loop()
        let executor = loop.executor
        // Started, observed and cancelled on the loop's own thread: a test's polls run on Swift's cooperative
        // threads, which blocking tests elsewhere in the suite can hold for longer than any sleep here.
        let (scheduled, afterCancel) = try await loop.task { () -> (Int, Int) in
            let sleeper = Task(executorPreference: executor) { try await Task.sleep(for: .seconds(20)) }
            for _ in 0..<10_000 where executor.scheduledCount == 0 { await Task.yield() }
            let scheduled = executor.scheduledCount
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            return (scheduled, executor.scheduledCount)
        }.value
        #expect(scheduled == 1, "Task.sleep's job never reached the loop")
        #expect(afterCancel == 1, "a cancelled Task.sleep left the executor: IdleClock may no longer be needed")
        try await loop.waitUntil("the old deadline") { loop.executor.scheduledCount == 0 }
    }

    @Test func timersRunInDeadlineOrderAndACancelledOneNeverRuns() async throws {
        let loop = Loop()
        let ran = Mutex<[Int]>([])
        var timers: [IdleExecutor.TimerID] = []
        for (name, delay) in [(3, 60), (1, 20), (4, 80), (2, 40), (5, 80)] as [(Int, Int64)] {
            timers.append(loop.executor.schedule(at: loop.deadline(in: delay), on: .continuous) { ran.withLock { $0.append(name) } })
        }
        #expect(loop.executor.cancel(timers[3]))  // the one named 2
        #expect(!loop.executor.cancel(timers[3]), "a timer is taken back only once")
        try await loop.waitUntil("four timers") { ran.withLock { $0.count } == 4 }
        #expect(ran.withLock { $0 } == [1, 3, 4, 5])
        #expect(!loop.executor.cancel(timers[1]), "a timer that ran cannot be taken back")
    }

    @Test func aTimerWithAToleranceRunsInAnEarlierTimersWakeUpOrElseAtItsDeadline() async throws {
        let loop = Loop()
        let ran = Mutex<[(name: Int, at: Int64)]>([])
        let start = IdleExecutor.now(.continuous)
        func note(_ name: Int) -> @Sendable () -> Void { { ran.withLock { $0.append((name, IdleExecutor.now(.continuous))) } } }
        let millisecond: Int64 = 1_000_000
        _ = loop.executor.schedule(at: loop.deadline(in: 100), on: .continuous, note(1))
        // Due in 20 s, but it may run up to 19.9 s early: it runs in the wake-up of the first.
        _ = loop.executor.schedule(at: loop.deadline(in: 20_000), tolerance: 19_900 * millisecond, on: .continuous, note(2))
        // Not yet within its tolerance at 100 ms, and nothing else wakes the loop: it runs at its deadline.
        _ = loop.executor.schedule(at: loop.deadline(in: 1_500), tolerance: 1_000 * millisecond, on: .continuous, note(3))
        try await loop.waitUntil("three timers") { ran.withLock { $0.count } == 3 }
        let runs = ran.withLock { $0 }
        let at = Dictionary(uniqueKeysWithValues: runs.map { ($0.name, $0.at - start) })
        #expect(at[1]! >= 100 * millisecond)
        #expect(at[2]! < 10_000 * millisecond, "the tolerant timer waited for its deadline")
        if at[1]! < 500 * millisecond {
            #expect(runs.map(\.name) == [1, 2, 3])
            #expect(at[3]! >= 1_500 * millisecond, "a timer ran early with no other reason to wake")
        } else {
            // The first wake-up came late (a loaded machine), inside the third timer's tolerance: it may run
            // there too, in deadline order, but never before its window opened.
            #expect(runs.map(\.name) == [1, 3, 2] || runs.map(\.name) == [1, 2, 3])
            #expect(at[3]! >= 500 * millisecond)
        }
        #expect(loop.executor.scheduledCount == 0)
    }
}
