import CSystemd
import Glibc
import Synchronization

/// The one thread that touches sd-bus objects (they are not thread-safe).
///
/// It runs queued jobs, lets every open connection process what arrived, then sleeps in `poll(2)` on the
/// connections' descriptors, their next timeout, and an eventfd that `execute` writes to. Idle, it does
/// not wake.
final class BusLoop: @unchecked Sendable {
    static let shared = BusLoop()

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let wakeFD: Int32
    /// Touched only on the loop thread.
    private var connections: [ObjectIdentifier: BusConnection] = [:]
    private var threadID = pthread_t()

    private init() {
        self.wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(self.wakeFD >= 0, "eventfd failed: \(String(cString: strerror(errno)))")
        let box = Unmanaged.passRetained(self)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 512 * 1024)
        let created = pthread_create(
            &self.threadID,
            &attributes,
            { context in
                let loop = Unmanaged<BusLoop>.fromOpaque(context!).takeRetainedValue()
                _ = attendant_name_thread("sd-bus")
                loop.run()
            },
            box.toOpaque()
        )
        pthread_attr_destroy(&attributes)
        precondition(created == 0, "cannot start the sd-bus thread: \(String(cString: strerror(created)))")
    }

    /// True on the loop thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), self.threadID) != 0 }

    /// Runs `job` on the loop thread, after the jobs queued before it.
    func execute(_ job: @escaping @Sendable () -> Void) {
        self.jobs.withLock { $0.append(job) }
        var one: UInt64 = 1
        _ = write(self.wakeFD, &one, 8)
    }

    /// Runs `body` on the loop thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws(BusError) -> T) async throws(BusError) -> T {
        let result: Result<T, BusError> = await withCheckedContinuation { continuation in
            self.execute {
                do throws(BusError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Starts polling `connection` (on the loop thread).
    func attach(_ connection: BusConnection) {
        precondition(self.isCurrent)
        self.connections[ObjectIdentifier(connection)] = connection
    }

    func detach(_ connection: BusConnection) {
        precondition(self.isCurrent)
        self.connections[ObjectIdentifier(connection)] = nil
    }

    private func run() -> Never {
        var descriptors: [pollfd] = []
        var order: [BusConnection] = []
        while true {
            let pending = self.jobs.withLock { jobs in
                let taken = jobs
                jobs.removeAll(keepingCapacity: true)
                return taken
            }
            for job in pending { job() }

            descriptors.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0))
            var timeout: Int32 = -1
            for connection in Array(self.connections.values) {
                guard let poll = connection.processAndPollRequest() else {
                    self.connections[ObjectIdentifier(connection)] = nil
                    continue
                }
                descriptors.append(poll.descriptor)
                order.append(connection)
                if let milliseconds = poll.timeoutMilliseconds {
                    timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
                }
            }
            if !self.jobs.withLock({ $0.isEmpty }) { timeout = 0 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 && errno != EINTR {
                perror("attendantd: sd-bus poll")
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                var count: UInt64 = 0
                _ = read(self.wakeFD, &count, 8)
            }
        }
    }
}
