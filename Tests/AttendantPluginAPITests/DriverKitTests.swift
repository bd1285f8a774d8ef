import AttendantPluginAPI
import AttendantPluginKit
import AttendantPluginTestKit
import Synchronization
import TestSupport
import Testing

/// The plugin kit's driver parts (timers on the host clock, the ordered worker, the outbox, JSON) on the
/// test kit's manual clock and in-memory store.
@Suite(.timeLimit(.minutes(1))) struct DriverKitTests {
    // MARK: ChannelTimers

    @Test func aTimerFiresOnceAfterItsDelayAndAStaleFiringIsRefused() async throws {
        let clock = ManualClock()
        let timers = ChannelTimers<String>(clock: clock)
        let fired = Recorder<TimerID<String>>()
        timers.arm("ping", after: .seconds(30)) { fired.add($0) }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(29))
        #expect(fired.all.isEmpty)
        clock.advance(by: .seconds(1))
        let first = try await fired.next()
        #expect(first.kind == "ping")
        #expect(timers.consume(first))
        #expect(!timers.consume(first), "used up")
        #expect(!timers.isArmed("ping"))

        // A firing that comes in after the key was armed again belongs to the old arming.
        timers.arm("ping", after: .seconds(5)) { fired.add($0) }
        #expect(!timers.consume(first))
        #expect(timers.isArmed("ping"))
    }

    @Test func armingAgainReplacesAndCancelStops() async throws {
        let clock = ManualClock()
        let timers = ChannelTimers<Int>(clock: clock)
        let fired = Recorder<TimerID<Int>>()
        timers.arm(1, after: .seconds(10)) { fired.add($0) }
        timers.arm(1, after: .seconds(20)) { fired.add($0) }
        timers.arm(2, after: .seconds(5)) { fired.add($0) }
        timers.cancel(2)
        await clock.waitForSleepers(where: { $0.count == 1 })
        clock.advance(by: .seconds(20))
        let only = try await fired.next()
        #expect(only.kind == 1 && timers.consume(only))
        timers.arm(3, after: .seconds(1)) { fired.add($0) }
        timers.cancelAll()
        await clock.waitForSleepers(where: { $0.isEmpty })
        clock.advance(by: .seconds(60))
        #expect(fired.all.count == 1)
    }

    @Test func timersArmedAndCancelledInAStepTakeEffectInTheTableAtOnceAndOnTheClockAfterIt() async throws {
        let clock = ManualClock()
        let timers = ChannelTimers<String>(clock: clock)
        let fired = Recorder<TimerID<String>>()
        timers.arm("old", after: .seconds(5)) { fired.add($0) }
        await clock.waitForSleepers(atLeast: 1)
        timers.startingAfter {
            timers.arm("ring", after: .seconds(30)) { fired.add($0) }
            timers.arm("gone", after: .seconds(1)) { fired.add($0) }
            #expect(timers.isArmed("ring") && timers.isArmed("gone"))
            timers.cancel("gone")
            timers.cancel("old")
            #expect(!timers.isArmed("gone") && !timers.isArmed("old"))
        }
        // After the step: the old sleep was taken back, "gone" never slept, "ring" sleeps its whole delay.
        await clock.waitForSleepers(where: { $0.map(\.offset) == [.seconds(30)] })
        clock.advance(by: .seconds(29))
        #expect(fired.all.isEmpty)
        clock.advance(by: .seconds(1))
        let ring = try await fired.next()
        #expect(ring.kind == "ring" && timers.consume(ring))
        #expect(fired.all.count == 1)
    }

    // MARK: OrderedWorker

    @Test func theWorkerDoesItemsInOrderAndDrainWaitsForThem() async {
        let worker = OrderedWorker<Int>()
        let done = Mutex<[Int]>([])
        for item in 1...3 { worker.enqueue(item) }
        let running = Task {
            await worker.run { item in
                await Task.yield()
                done.withLock { $0.append(item) }
            }
        }
        worker.enqueue(4)
        await worker.drain()
        #expect(done.withLock { $0 } == [1, 2, 3, 4])
        worker.enqueue(5)
        worker.finish()
        await running.value
        #expect(done.withLock { $0 } == [1, 2, 3, 4, 5], "what was queued before finish() is still done")
        worker.enqueue(6)
        await worker.drain()
        #expect(done.withLock { $0 } == [1, 2, 3, 4, 5], "nothing after")
    }

    @Test func cancellingTheWorkerDropsWhatIsQueuedAndReleasesDrains() async {
        let worker = OrderedWorker<Int>()
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let done = Mutex<[Int]>([])
        let running = Task {
            await worker.run { item in
                if item == 1 { await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
                done.withLock { $0.append(item) }
            }
        }
        worker.enqueue(1)
        worker.enqueue(2)
        let draining = Task { await worker.drain() }
        while gate.withLock({ $0 == nil }) { await Task.yield() }
        running.cancel()
        gate.withLock { $0 }?.resume()
        await running.value
        await draining.value
        #expect(done.withLock { $0 } == [1])
    }

    // MARK: Outbox

    struct Message: Codable, Sendable, Hashable {
        var id: String
        var text: String
    }

    @Test func theOutboxKeepsEntriesUntilDeliveredAcrossALoad() async throws {
        let host = InMemoryChannelHost()
        let outbox = Outbox<Message>(store: host.store) { $0.id }
        try await outbox.add(Message(id: "m1", text: "Hello"))
        try await outbox.add(Message(id: "m2", text: "Are you there?"))
        _ = try await host.store.enqueue("not json")
        #expect(try await outbox.remove("m1"))
        #expect(try await !outbox.remove("m1"), "once")

        // The daemon restarts: a new outbox over the same store finds what is left.
        let again = Outbox<Message>(store: host.store) { $0.id }
        let (entries, unreadable) = try await again.load()
        #expect(entries == [Message(id: "m2", text: "Are you there?")])
        #expect(unreadable.count == 1)
        try await again.discard(unreadable)
        #expect(again.keys == ["m2"])
        #expect(try await again.remove("m2"))
        #expect(try await host.store.pendingOutbox().isEmpty)
    }

    // MARK: JSONValue

    @Test func jsonIsWrittenCompactlyWithSortedKeysAndReadsBackTheSame() throws {
        let value = JSONValue.object([
            "channel": .string("/meta/connect"),
            "id": .number(7),
            "advice": .object(["timeout": .number(30_000), "reconnect": .string("retry")]),
            "ext": .object(["transcriptPosition": .number(12)]),
            "text": .string("line\nwith \"quotes\" \\ and \u{01}"),
            "ratio": .number(0.25),
            "list": .array([.bool(true), .null]),
        ])
        #expect(
            value.text
                == #"{"advice":{"reconnect":"retry","timeout":30000},"channel":"/meta/connect","ext":{"transcriptPosition":12},"id":7,"list":[true,null],"ratio":0.25,"text":"line\nwith \"quotes\" \\ and \u0001"}"#
        )
        #expect(try JSONValue.parse(value.encoded()) == value)
        #expect(value["id"]?.integerValue == 7 && value["ratio"]?.integerValue == nil)
        #expect(value["channel"]?.stringValue == "/meta/connect")
        #expect(JSONValue.number(.infinity).text == "null")
    }

    /// A number past Double's range is refused rather than read as infinity, which would be written back
    /// as `null` (the Bayeux fuzz target found it: what is read must survive being written).
    @Test func aNumberOutOfRangeIsRefused() throws {
        for text in ["1e400", "-1e400", #"{"utcTime":1e432845088000}"#] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(text.utf8)) }
        }
        #expect(try JSONValue.parse(Array("1e308".utf8)) == .number(1e308))
        #expect(try JSONValue.parse(Array("1e-400".utf8)) == .number(0))
    }
}

struct Refusal: Error, Equatable {
    var text: String
}
