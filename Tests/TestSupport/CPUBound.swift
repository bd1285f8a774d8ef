import Foundation
import Glibc
import Synchronization
package import Testing

/// For a test that computes for seconds without waiting on anything (fuzz-style and random-input loops,
/// parsers driven over thousands of inputs): it runs on a thread of its own, at a low priority, one such
/// test at a time.
///
/// Synchronous tests otherwise run on the concurrency pool, which has one thread per core. Two of them
/// computing at once on a two-core machine took the whole pool, and every test waiting on a daemon, a
/// peer or a bounded wait stood still meanwhile: in CI the first 40 s of a run passed that way, and
/// waits of 20 and 30 s timed out with nothing wrong. Profiled with `perf record` on the test binary.
package struct CPUBoundTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// Every test function and every case of a parameterized one (Swift Testing runs each case in a task
    /// of its own, which a preference set around the whole function would not reach); never a suite.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    package func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ComputeThread.shared) { try await function() }
    }
}

extension Trait where Self == CPUBoundTrait {
    /// Runs the test on the one low-priority compute thread, off the concurrency pool.
    package static var cpuBound: Self { CPUBoundTrait() }
}

/// One thread running the jobs given to it in order, at nice 10, so the tests that wait on processes and
/// sockets get the cores first.
final class ComputeThread: TaskExecutor, @unchecked Sendable {
    static let shared = ComputeThread()

    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            // Its name in `top -H`, `perf` and gdb (Glibc's module has no pthread_setname_np).
            try? "cpu-bound-tests".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            // On Linux a nice value belongs to a thread, and `who` 0 is the calling one (setpriority(2),
            // BUGS): this lowers only the compute thread.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            while true {
                self.ready.wait()
                guard let job = self.jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.jobs.withLock { $0.append(job) }
        self.ready.signal()
    }
}
