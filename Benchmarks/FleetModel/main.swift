import AttendantCore
import AttendantPluginAPI
import AttendantPluginKit
import SIPCore

// The fleet-scale reconnection model (issue 34): thousands of the daemon's own pure supervisor machines
// (`SupervisorStateMachine`, the one each channel runs, with its real backoff) on one simulated clock,
// against a server that is down for a while and then takes a limited number of attempts a second. It
// reports the arrival rate at the server after it recovers (peak and mean, by second) and how long until
// 99 % of the desks listen again, for each scenario:
// - a 10-minute outage: every channel drops at once and retries with its backoff;
// - the same, with the overloaded server answering 503 with Retry-After, which the desk turns into its
//   retry delay as the SIP channel does (`RegistrationRetry`);
// - a mass resume: every laptop wakes at 9:00 and retries at once.
//
//   ATTENDANT_BENCHMARKS=1 swift build -c release --scratch-path .build-release --product attendant-fleet-model
//   .build-release/release/attendant-fleet-model [--desks N] [--capacity PER_SECOND] [--seed S]
//
// Nothing here reads a clock: a run is the same every time for the same seed.

/// SplitMix64: a small, seeded generator, so each desk's jitter is its own and runs repeat.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The server the desks reach: down until `recoversAt`, then at most `capacity` attempts in each second;
/// those over it are refused (503), with `retryAfter` when it asks for one.
struct Server {
    var recoversAt: Duration
    var capacity: Int
    var retryAfter: Duration?
    var taken: [Int: Int] = [:]
    /// Attempts by second since the start, taken or not.
    var arrivals: [Int: Int] = [:]

    /// Nil when taken; else the status code (nil: no answer) and the Retry-After.
    mutating func attempt(at now: Duration) -> Refusal? {
        let second = Int(now.components.seconds)
        self.arrivals[second, default: 0] += 1
        guard now >= self.recoversAt else { return (nil, nil) }
        guard self.taken[second, default: 0] < self.capacity else {
            return (503, self.retryAfter.map { UInt32($0.components.seconds) })
        }
        self.taken[second, default: 0] += 1
        return nil
    }
}

/// Why an attempt failed: the status code (nil when nothing answered) and the Retry-After.
typealias Refusal = (status: Int?, retryAfter: UInt32?)

struct Scenario {
    var name: String
    var outage: Duration
    var retryAfter: Duration?
    /// Every desk resumes from sleep at the start (rather than dropping and backing off).
    var massResume: Bool
}

struct Figures {
    var peak: Int
    /// The peak without the recovery's first second: the retries alone, not the wake-up itself.
    var retryPeak: Int
    var mean: Double
    var toNinetyNine: Duration?
    var attempts: Int
}

/// A min-heap of (time, desk) wake-ups.
struct WakeUps {
    var heap: [(at: Duration, desk: Int)] = []

    mutating func push(_ at: Duration, _ desk: Int) {
        self.heap.append((at, desk))
        var child = self.heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.heap[child].at < self.heap[parent].at else { break }
            self.heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (at: Duration, desk: Int)? {
        guard !self.heap.isEmpty else { return nil }
        let top = self.heap[0]
        let last = self.heap.removeLast()
        if !self.heap.isEmpty {
            self.heap[0] = last
            var parent = 0
            while true {
                let left = parent * 2 + 1
                let right = left + 1
                var smallest = parent
                if left < self.heap.count, self.heap[left].at < self.heap[smallest].at { smallest = left }
                if right < self.heap.count, self.heap[right].at < self.heap[smallest].at { smallest = right }
                guard smallest != parent else { break }
                self.heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}

func run(_ scenario: Scenario, desks: Int, capacity: Int, seed: UInt64, configuration: SupervisorStateMachine<SplitMix64>.Configuration) -> Figures {
    typealias Machine = SupervisorStateMachine<SplitMix64>
    var server = Server(recoversAt: scenario.outage, capacity: capacity, retryAfter: scenario.retryAfter)
    var machines: [Machine] = []
    var retries: [RegistrationRetry] = Array(repeating: RegistrationRetry(), count: desks)
    var randoms = (0..<desks).map { SplitMix64(state: seed &+ 0x5EED &+ UInt64($0)) }
    var wakeUps = WakeUps()
    var listening = 0
    var listenedAt: [Duration] = []

    // Every desk listens, then the network goes (or the desk sleeps) at the start.
    for desk in 0..<desks {
        var machine = Machine(configuration: configuration, random: SplitMix64(state: seed &+ UInt64(desk) &* 0x1000_0001))
        _ = machine.start()
        _ = machine.listenSucceeded(now: .seconds(-3600))
        let lost = machine.stoppedListening(ChannelError(.transient, "the network went away"), now: .zero)
        if scenario.massResume {
            // Asleep through the night; every laptop wakes at 9:00, the start here.
            _ = machine.resumed(now: .zero)
            wakeUps.push(.zero, desk)
        } else if case .wakeUp(let at) = lost {
            wakeUps.push(at, desk)
        }
        machines.append(machine)
    }

    while listening < desks, let (now, desk) = wakeUps.pop() {
        var action = Machine.Action.none
        if case .starting = machines[desk].state {
            action = .listen
        } else {
            action = machines[desk].timerFired(now: now)
        }
        guard case .listen = action else { continue }
        if let refused = server.attempt(at: now) {
            // As SIPAgent hands a failure to the host: the registrar's Retry-After, or its probe delay.
            let delay = retries[desk].delay(statusCode: refused.status, retryAfter: refused.retryAfter, using: &randoms[desk])
            let error = ChannelError(.transient, "the registrar is unavailable", retryAfter: delay)
            if case .wakeUp(let at) = machines[desk].listenFailed(error, now: now) { wakeUps.push(at, desk) }
        } else {
            _ = machines[desk].listenSucceeded(now: now)
            retries[desk].registered()
            listening += 1
            listenedAt.append(now)
        }
    }

    // After the server came back: the attempts in each second until 99 % listen.
    listenedAt.sort()
    let ninetyNine = listenedAt.count >= desks * 99 / 100 ? listenedAt[desks * 99 / 100 - 1] : nil
    let first = Int(scenario.outage.components.seconds)
    let last = Int((ninetyNine ?? listenedAt.last ?? scenario.outage).components.seconds)
    let window = (first...max(first, last)).map { server.arrivals[$0, default: 0] }
    return Figures(
        peak: window.max() ?? 0,
        retryPeak: window.dropFirst().max() ?? 0,
        mean: Double(window.reduce(0, +)) / Double(max(window.count, 1)),
        toNinetyNine: ninetyNine.map { $0 - scenario.outage },
        attempts: server.arrivals.values.reduce(0, +)
    )
}

func option(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else {
        return fallback
    }
    return value
}

let desks = option("--desks", 10_000)
let capacity = option("--capacity", 200)
let seed = UInt64(option("--seed", 1))
var configuration = SupervisorStateMachine<SplitMix64>.Configuration()
if CommandLine.arguments.contains("--base") { configuration.backoff.base = .seconds(option("--base", 1)) }
print("fleet model: \(desks) desks, a server that takes \(capacity) attempts a second once up, seed \(seed)")
print("scenario                                  peak/s  mean/s  peak/mean  retries' peak/mean  99% listening after  attempts")
let scenarios = [
    Scenario(name: "10-minute outage", outage: .seconds(600), retryAfter: nil, massResume: false),
    Scenario(name: "10-minute outage, 503 Retry-After: 60", outage: .seconds(600), retryAfter: .seconds(60), massResume: false),
    Scenario(name: "mass resume at 9:00", outage: .zero, retryAfter: nil, massResume: true),
    Scenario(name: "mass resume at 9:00, 503 Retry-After: 60", outage: .zero, retryAfter: .seconds(60), massResume: true),
]
for scenario in scenarios {
    let figures = run(scenario, desks: desks, capacity: capacity, seed: seed, configuration: configuration)
    let ratio = figures.mean > 0 ? Double(figures.peak) / figures.mean : 0
    let after = figures.toNinetyNine.map { "\($0.components.seconds) s" } ?? "never"
    func fixed(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
    print(
        scenario.name + String(repeating: " ", count: max(0, 42 - scenario.name.count)),
        String(figures.peak).leftPadded(6),
        fixed(figures.mean).leftPadded(7),
        fixed(ratio).leftPadded(10),
        fixed(figures.mean > 0 ? Double(figures.retryPeak) / figures.mean : 0).leftPadded(19),
        after.leftPadded(20),
        String(figures.attempts).leftPadded(9)
    )
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - self.count)) + self }
}
