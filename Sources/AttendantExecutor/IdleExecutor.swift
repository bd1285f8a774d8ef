// The daemon's only executor: one thread that runs every task, sleeps in poll(2) while nothing is due and
// wakes for nothing else. Swift's default global executor on Linux is a libdispatch concurrent queue, and
// its first worker starts libdispatch's once-a-second pool monitor, which never stops (DESIGN.md §8, "The
// libdispatch once-a-second wake-up"). This executor replaces both the main and the global executor.
//
// Jobs come from any thread (swift-nio's event loops, the sd-bus thread resume continuations); they are
// queued under a lock and the loop is woken through an eventfd only when it is asleep. Delayed jobs
// (Task.sleep) wait in one heap per clock, each with a timerfd armed for its earliest deadline, so a timer
// costs one wake-up when it is due and nothing before. A job of a cancelled `Task.sleep` cannot be taken
// back (the SPI has no call for it) and still wakes the loop once at its deadline; `IdleClock`'s sleeps
// are actions that cancellation removes from the heap, so they never wake anything.
import CAttendantExecutor
import Glibc
import Synchronization
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

final class IdleExecutor: MainExecutor, TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // Swift's clocks on Linux: ContinuousClock counts suspended time (CLOCK_BOOTTIME); SuspendingClock does
    // not (the runtime reads CLOCK_MONOTONIC_RAW, which timerfd cannot wait on; CLOCK_MONOTONIC runs at the
    // same rate but for NTP slewing, well under the poll's precision that matters here).
    enum ClockKind: Int {
        case continuous = 0
        case suspending = 1
    }

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
    /// How often the loop came back from poll(2): for tests, which count wake-ups.
    let wakeups = Atomic<Int>(0)
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
        let deadline = Self.now(kind) &+ Self.nanoseconds(delay as! Swift.Duration)
        _ = self.schedule(.job(UnownedJob(job)), at: deadline, on: kind)
    }

    // MARK: Cancellable timers (IdleClock)

    /// A scheduled action, for `cancel(_:)`.
    struct TimerID: Sendable {
        fileprivate var kind: ClockKind
        fileprivate var sequence: UInt64
    }

    /// Runs `action` on the loop's thread once `deadline` (nanoseconds on `kind`'s clock) has come, or up to
    /// `tolerance` nanoseconds before it when the loop is awake for something else then.
    func schedule(at deadline: Int64, tolerance: Int64 = 0, on kind: ClockKind, _ action: @escaping @Sendable () -> Void) -> TimerID {
        TimerID(kind: kind, sequence: self.schedule(.action(action), at: deadline, tolerance: tolerance, on: kind))
    }

    /// Takes a scheduled action back before it runs; false when it already ran or was taken back. When the
    /// loop is asleep with its timerfd armed for this deadline, it wakes once then and finds nothing; from
    /// the loop's own thread (where tasks run) the timerfd is re-armed before the next sleep instead.
    @discardableResult
    func cancel(_ timer: TimerID) -> Bool {
        self.shared.withLock { $0.timers[timer.kind.rawValue].remove(sequence: timer.sequence) }
    }

    /// Delayed jobs and actions not yet due, for tests.
    var scheduledCount: Int { self.shared.withLock { $0.timers.reduce(0) { $0 + $1.count } } }

    private func schedule(_ work: TimerHeap.Work, at deadline: Int64, tolerance: Int64 = 0, on kind: ClockKind) -> UInt64 {
        let (sequence, wake) = self.shared.withLock { shared in
            shared.sequence &+= 1
            shared.timers[kind.rawValue].push(.init(deadline: deadline, sequence: shared.sequence, work: work, tolerance: tolerance))
            // An asleep loop must re-arm its timerfd if this deadline comes first.
            return (shared.sequence, shared.sleeping)
        }
        if wake { self.wake() }
        return sequence
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
        var due: [TimerHeap.Work] = []
        while true {
            let now = [Self.now(.continuous), Self.now(.suspending)]
            let (stop, deadlines) = self.shared.withLock { shared -> (Bool, [Int64?]) in
                if shared.stopping { return (true, []) }
                swap(&batch, &shared.ready)
                for kind in 0..<2 { shared.timers[kind].popExpired(now: now[kind], into: &due) }
                shared.sleeping = batch.isEmpty && due.isEmpty
                return (false, shared.timers.map(\.earliestDeadline))
            }
            if stop { return }
            if batch.isEmpty && due.isEmpty {
                self.sleep(until: deadlines)
                self.shared.withLock { $0.sleeping = false }
                continue
            }
            for job in batch { ExecutorJob(job).runSynchronously(on: self.asUnownedSerialExecutor()) }
            // Timers after the ready jobs, as before: an action resumes a continuation, which enqueues its
            // task for the next turn of the loop.
            for work in due {
                switch work {
                case .job(let job): ExecutorJob(job).runSynchronously(on: self.asUnownedSerialExecutor())
                case .action(let action): action()
                }
            }
            batch.removeAll(keepingCapacity: true)
            due.removeAll(keepingCapacity: true)
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
        self.wakeups.add(1, ordering: .relaxed)
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

    /// `duration` in whole nanoseconds, zero for a negative one.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds) &* 1_000_000_000 &+ max(0, attoseconds / 1_000_000_000)
    }

    static func now(_ kind: ClockKind) -> Int64 {
        var time = timespec()
        clock_gettime(kind == .continuous ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
