// The daemon's only executor: one thread that runs every task, sleeps in poll(2) while nothing is due and
// wakes for nothing else. Swift's default global executor on Linux is a libdispatch concurrent queue, and
// its first worker starts libdispatch's once-a-second pool monitor, which never stops (DESIGN.md §8, "The
// libdispatch once-a-second wake-up"). This executor replaces both the main and the global executor.
//
// Jobs come from any thread (swift-nio's event loops, the sd-bus thread resume continuations); they are
// queued under a lock and the loop is woken through an eventfd only when it is asleep. Delayed jobs
// (Task.sleep) wait in one heap per clock, each with a timerfd armed for its earliest deadline, so a timer
// costs one wake-up when it is due and nothing before.
import CAttendantExecutor
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Glibc
import Synchronization

final class IdleExecutor: MainExecutor, TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // Swift's clocks on Linux: ContinuousClock counts suspended time (CLOCK_BOOTTIME); SuspendingClock does
    // not (the runtime reads CLOCK_MONOTONIC_RAW, which timerfd cannot wait on; CLOCK_MONOTONIC runs at the
    // same rate but for NTP slewing, well under the poll's precision that matters here).
    enum ClockKind: Int { case continuous = 0, suspending = 1 }

    private struct Shared: ~Copyable {
        var ready: [UnownedJob] = []
        var timers: [TimerHeap] = [TimerHeap(), TimerHeap()]
        var sequence: UInt64 = 0
        var sleeping = false
        var stopping = false
    }

    private let shared = Mutex(Shared())
    private let wakeFD: Int32
    private let timerFDs: [Int32]
    /// The thread running `run()`, for isolation checks (0 before it starts).
    private let loopThread = Atomic<UInt>(0)
    /// Deadline each timerfd is armed for; touched only by the loop thread.
    private var armed: [Int64] = [0, 0]

    init() {
        self.wakeFD = c_attendant_eventfd()
        self.timerFDs = [c_attendant_timerfd(CLOCK_BOOTTIME), c_attendant_timerfd(CLOCK_MONOTONIC)]
        precondition(
            self.wakeFD >= 0 && self.timerFDs.allSatisfy { $0 >= 0 },
            "IdleExecutor: eventfd/timerfd_create failed (errno \(errno)); the process cannot run tasks"
        )
    }

    // MARK: Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let wake = self.shared.withLock { shared in
            shared.ready.append(unowned)
            return shared.sleeping
        }
        if wake { self.wake() }
    }

    public func enqueue<C: Clock>(
        _ job: consuming ExecutorJob,
        after delay: C.Duration,
        tolerance: C.Duration? = nil,
        clock: C
    ) {
        let kind: ClockKind
        if clock is ContinuousClock {
            kind = .continuous
        } else if clock is SuspendingClock {
            kind = .suspending
        } else {
            // Only Task.sleep with the standard clocks reaches an executor on this toolchain; other clocks
            // implement sleep themselves. Falling back silently would fire at a wrong time, so stop here.
            preconditionFailure("IdleExecutor: cannot schedule a job on clock \(C.self); use ContinuousClock or SuspendingClock")
        }
        let duration = delay as! Swift.Duration
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) &* 1_000_000_000 &+ max(0, attoseconds / 1_000_000_000)
        let deadline = Self.now(kind) &+ nanoseconds
        let unowned = UnownedJob(job)
        let wake = self.shared.withLock { shared in
            shared.sequence &+= 1
            shared.timers[kind.rawValue].push(.init(deadline: deadline, sequence: shared.sequence, job: unowned))
            // An asleep loop must re-arm its timerfd if this deadline comes first.
            return shared.sleeping
        }
        if wake { self.wake() }
    }

    // MARK: SerialExecutor (the main actor runs here too)

    public var isMainExecutor: Bool { true }

    public func isIsolatingCurrentContext() -> Bool? {
        self.loopThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    public func checkIsolated() {
        precondition(
            self.isIsolatingCurrentContext() == true,
            "IdleExecutor: code isolated to the main actor or a task ran off the executor's thread"
        )
    }

    // MARK: RunLoopExecutor

    public func run() throws {
        self.loopThread.store(UInt(pthread_self()), ordering: .releasing)
        var batch: [UnownedJob] = []
        while true {
            let now = [Self.now(.continuous), Self.now(.suspending)]
            let (stop, deadlines) = self.shared.withLock { shared -> (Bool, [Int64?]) in
                if shared.stopping { return (true, []) }
                swap(&batch, &shared.ready)
                for kind in 0..<2 { shared.timers[kind].popExpired(now: now[kind], into: &batch) }
                shared.sleeping = batch.isEmpty
                return (false, shared.timers.map(\.earliestDeadline))
            }
            if stop { return }
            if batch.isEmpty {
                self.sleep(until: deadlines)
                self.shared.withLock { $0.sleeping = false }
                continue
            }
            for job in batch { ExecutorJob(job).runSynchronously(on: self.asUnownedSerialExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    public func stop() {
        self.shared.withLock { $0.stopping = true }
        self.wake()
    }

    // MARK: The loop's sleep

    private func sleep(until deadlines: [Int64?]) {
        for kind in 0..<2 {
            let deadline = deadlines[kind] ?? 0
            if deadline != self.armed[kind] {
                // Deadlines are in the future here (expired ones were taken), so a zero never arms by mistake.
                _ = c_attendant_timerfd_arm(self.timerFDs[kind], deadline)
                self.armed[kind] = deadline
            }
        }
        var fds = [
            pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.timerFDs[0], events: Int16(POLLIN), revents: 0),
            pollfd(fd: self.timerFDs[1], events: Int16(POLLIN), revents: 0),
        ]
        let result = poll(&fds, nfds_t(fds.count), -1)
        guard result > 0 else { return }  // EINTR: look at the queues again
        var counter: UInt64 = 0
        for index in fds.indices where fds[index].revents != 0 {
            _ = read(fds[index].fd, &counter, MemoryLayout<UInt64>.size)
            // A fired timerfd is disarmed until armed again.
            if index > 0 { self.armed[index - 1] = 0 }
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(self.wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    static func now(_ kind: ClockKind) -> Int64 {
        var time = timespec()
        clock_gettime(kind == .continuous ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
