import AttendantCore
import Synchronization
import Testing

/// ``Timekeeper/withTimeout(_:_:)`` bounds a plugin's call even when the call ignores cancellation.
struct TimekeeperTests {
    let timekeeper = Timekeeper(ContinuousClock())

    @Test func anOperationWithinItsLimitGivesItsValue() async throws {
        #expect(try await self.timekeeper.withTimeout(.seconds(30)) { 42 } == 42)
        await #expect(throws: Stuck.self) { try await self.timekeeper.withTimeout(.seconds(30)) { () async throws -> Int in throw Stuck() } }
    }

    @Test func anOperationThatIgnoresCancellationIsLeftBehindAtTheLimit() async throws {
        let latch = Latch()
        let finished = Atomic(false)
        let returned = Atomic(false)
        let timekeeper = self.timekeeper
        let call = Task {
            defer { returned.store(true, ordering: .sequentiallyConsistent) }
            return try await timekeeper.withTimeout(.milliseconds(50)) {
                await latch.wait()
                finished.store(true, ordering: .sequentiallyConsistent)
            }
        }
        // Only the test opens the latch, after this: a withTimeout that waited for the operation would
        // not return at all. The bound is generous (a loaded machine can starve the test's threads for
        // seconds); it keeps such a failure from hanging the suite.
        for _ in 0..<1200 where !returned.load(ordering: .sequentiallyConsistent) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let callReturned = returned.load(ordering: .sequentiallyConsistent)
        let operationEnded = finished.load(ordering: .sequentiallyConsistent)
        latch.open()
        #expect(callReturned, "withTimeout waited for the operation that ignored its cancellation")
        #expect(!operationEnded)
        await #expect(throws: TimeoutError.self) { try await call.value }
    }

    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let started = Latch()
        let call = Task {
            try await self.timekeeper.withTimeout(.seconds(60)) {
                started.open()
                try await Task.sleep(for: .seconds(60))
            }
        }
        await started.wait()
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    struct Stuck: Error {}
}

/// Opens once; waiting does not notice cancellation, like a plugin's call that ignores it.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = self.state.withLock { state in
            defer { state = (true, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = self.state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }
}
