import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// The kit's retired types, deprecated since the drivers replaced them (CHANGELOG.md): they still ship in
/// the library for plugins built against them, so they are still tested.
@Suite struct RetiredKitTests {
    // MARK: Waiters

    @available(*, deprecated, message: "tests a retired type")
    @Test func waitersSettleWhenTheirConditionIsMetAndExpireAtTheirDeadline() async throws {
        let clock = ManualClock()
        let waiters = Waiters<Int, String>(clock: clock)
        let expired = Recorder<UInt64>()
        let three = Task { try await withCheckedThrowingContinuation { waiters.add($0, until: 3) } }
        let late = Task { try await withCheckedThrowingContinuation { waiters.add($0, until: 99, timeout: .seconds(5)) { expired.add($0) } } }
        while waiters.count < 2 { await Task.yield() }
        await clock.waitForSleepers(atLeast: 1)
        // A step got to 2: nobody's condition.
        #expect(waiters.settle { $0 <= 2 ? .success("at \($0)") : nil }.isEmpty)
        // Then to 3.
        waiters.settle { $0 <= 3 ? .success("at 3") : nil }.resume()
        #expect(try await three.value == "at 3")
        clock.advance(by: .seconds(5))
        let id = try await expired.next()
        waiters.remove(id) { condition in .failure(Refusal(text: "no \(condition) within 5 s")) }?.resume()
        await #expect(throws: Refusal(text: "no 99 within 5 s")) { try await late.value }
        #expect(waiters.isEmpty)
        #expect(waiters.remove(id) { _ in .success("again") } == nil, "gone already")
    }

    @available(*, deprecated, message: "tests a retired type")
    @Test func stoppingFailsEveryWaiter() async throws {
        let waiters = Waiters<Int, String>(clock: ManualClock())
        let one = Task { try await withCheckedThrowingContinuation { waiters.add($0, until: 1) } }
        let two = Task { try await withCheckedThrowingContinuation { waiters.add($0, until: 2) } }
        while waiters.count < 2 { await Task.yield() }
        waiters.removeAll(throwing: Refusal(text: "stopping")).resume()
        await #expect(throws: Refusal(text: "stopping")) { try await one.value }
        await #expect(throws: Refusal(text: "stopping")) { try await two.value }
    }

    // MARK: ChannelDriver

    @available(*, deprecated, message: "tests a retired type")
    final class Counter: ChannelDriver {
        let driverState = DriverState(0)
        let performed = Mutex<[String]>([])

        func perform(_ effect: String) {
            // After the lock: the state can be read again here.
            let now = self.withState { $0 }
            self.performed.withLock { $0.append("\(effect) at \(now)") }
        }
    }

    @available(*, deprecated, message: "tests a retired type")
    @Test func aStepsEffectsRunInOrderAfterItsLock() {
        let counter = Counter()
        let result = counter.step { state, effects in
            state += 1
            effects.append("first")
            state += 1
            effects.append("second")
            return state
        }
        #expect(result == 2)
        #expect(counter.performed.withLock { $0 } == ["first at 2", "second at 2"])
    }
}
