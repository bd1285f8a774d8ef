import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

@Suite struct ManualClockTests {
    @Test func sleepersWakeInDeadlineOrderWhenTimeAdvances() async throws {
        let clock = ManualClock()
        let order = OrderRecorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await clock.sleep(for: .seconds(20))
                await order.append(20)
            }
            group.addTask {
                try await clock.sleep(for: .seconds(10))
                await order.append(10)
            }
            await clock.waitForSleepers(atLeast: 2)
            clock.advance(by: .seconds(10))
            await order.waitForCount(1)
            #expect(clock.sleeperCount == 1)
            clock.advanceToNextDeadline()
            try await group.waitForAll()
        }
        #expect(await order.values == [10, 20])
        #expect(clock.now.offset == .seconds(20))
        #expect(clock.unixTime() == clock.epoch + .seconds(20))
    }

    @Test func cancellingASleeperEndsItsSleep() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(3600)) }
        await clock.waitForSleepers(atLeast: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }
}

actor OrderRecorder {
    private(set) var values: [Int] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func append(_ value: Int) {
        self.values.append(value)
        let ready = self.waiters.filter { $0.0 <= self.values.count }
        self.waiters.removeAll { $0.0 <= self.values.count }
        for (_, continuation) in ready { continuation.resume() }
    }

    func waitForCount(_ count: Int) async {
        if self.values.count >= count { return }
        await withCheckedContinuation { self.waiters.append((count, $0)) }
    }
}
