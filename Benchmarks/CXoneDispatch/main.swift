// How fast the CXoneChat plugin's pure layer (CXoneCore) turns gateway frames into work, in one process,
// without a socket:
//
//   swift run -c release attendant-cxone-dispatch [events] [runs] [threads]     (default 100000 20 1000)
//
// 1. MessageCreated dispatch. `events` agent messages in one thread (about 100 characters each, distinct
//    ids), encoded beforehand as the gateway pushes them. A single-thread ChatStateMachine is brought to
//    `ready` (prepare, configuration, visitor, connect, socket, ConsumerAuthorized, ThreadRecovered); then
//    each frame is decoded (CXoneInbound.decode), mapped (ChatWireInput.input), handled by the machine, and
//    its actions are carried out as BenchDriver does (reports counted). One pass times the whole loop
//    (events/s), a second pass, on a fresh machine, times each frame alone (median, p99). The first frames
//    of each pass warm up and are not counted. Two more whole-loop passes over the same frames show the
//    share of decoding alone and of decoding + mapping.
// 2. Thread-list load. A multi-thread machine is brought to `connected` (it has sent FetchThreadList);
//    timed from decoding the ThreadListFetched answer (`threads` threads) — the machine then sends one
//    LoadThreadMetadata per thread, each frame encoded — through decoding and handling the ThreadMetadataLoaded
//    answers (each with a last message, matched to its request by eventId) until the machine reports
//    `ready`. `runs` runs, each on a fresh machine, after 3 that warm up.
import AttendantPluginAPI
import CXoneCore
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let events = arguments.first.flatMap(Int.init) ?? 100_000
let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 20
let threadCount = arguments.dropFirst(2).first.flatMap(Int.init) ?? 1000
let warmUpRuns = 3

guard events > 0, runs > 0, threadCount > 0 else {
    print("usage: attendant-cxone-dispatch [events] [runs] [threads]  (positive whole numbers; default 100000 20 1000)")
    exit(2)
}

let frames = GatewayFrames()

// MARK: 1. MessageCreated dispatch

/// The figures of the MessageCreated measurement.
struct DispatchFigures {
    var frameBytes = 0
    var throughputNanoseconds: UInt64 = 0
    var perEvent = Samples([])
    /// The whole loop with only CXoneInbound.decode, and with decode + ChatWireInput.input.
    var decodeNanoseconds: UInt64 = 0
    var decodeAndMapNanoseconds: UInt64 = 0
}

func measureDispatch() throws -> DispatchFigures {
    let warmUp = min(10_000, max(1_000, events / 10))
    let threadID = CXoneID.random()
    let thread = frames.thread(threadID)
    let contact = CXoneWire.Contact(id: .random(), threadIdOnExternalPlatform: threadID, status: "open", createdAt: frames.start)
    let earlier = (0..<3).map { frames.agentMessage($0, in: threadID) }
    var pushes: [[UInt8]] = []
    pushes.reserveCapacity(warmUp + events)
    for number in 0..<(warmUp + events) {
        pushes.append(try frames.messageCreated(frames.agentMessage(earlier.count + number, in: threadID), thread: thread, contact: contact))
    }
    var figures = DispatchFigures()
    figures.frameBytes = pushes.reduce(0) { $0 + $1.count } / pushes.count

    // Throughput: the loop timed as a whole.
    var driver = try BenchDriver.singleThreadReady(frames: frames, thread: thread, contact: contact, earlier: earlier)
    for frame in pushes[..<warmUp] { try driver.carryOut(try driver.receive(frame)) }
    let start = monotonicNanoseconds()
    for frame in pushes[warmUp...] { try driver.carryOut(try driver.receive(frame)) }
    figures.throughputNanoseconds = monotonicNanoseconds() - start
    try check(driver, received: pushes.count)

    // Per event: each frame timed alone, on a fresh machine.
    driver = try BenchDriver.singleThreadReady(frames: frames, thread: thread, contact: contact, earlier: earlier)
    var latencies: [UInt64] = []
    latencies.reserveCapacity(events)
    for (index, frame) in pushes.enumerated() {
        let before = monotonicNanoseconds()
        try driver.carryOut(try driver.receive(frame))
        let after = monotonicNanoseconds()
        if index >= warmUp { latencies.append(after - before) }
    }
    try check(driver, received: pushes.count)
    figures.perEvent = Samples(latencies)

    // Where the time goes: the same frames decoded only, then decoded and mapped (no machine).
    var decoded = 0
    var begin = monotonicNanoseconds()
    for frame in pushes[warmUp...] {
        if case .event = try CXoneInbound.decode(frame) { decoded += 1 }
    }
    figures.decodeNanoseconds = monotonicNanoseconds() - begin
    begin = monotonicNanoseconds()
    for frame in pushes[warmUp...] {
        if ChatWireInput.input(for: try CXoneInbound.decode(frame), now: driver.now).input != nil { decoded += 1 }
    }
    figures.decodeAndMapNanoseconds = monotonicNanoseconds() - begin
    guard decoded == 2 * events else { throw BenchError("only \(decoded) of \(2 * events) frames decoded to a MessageCreated input") }
    return figures
}

/// Every MessageCreated must have been reported as a new message, or the benchmark measured a shortcut.
func check(_ driver: BenchDriver, received expected: Int) throws {
    guard driver.messagesReceived == expected, driver.machine.state == .ready else {
        throw BenchError("the machine reported \(driver.messagesReceived) of \(expected) messages and is \(driver.machine.state)")
    }
}

// MARK: 2. Thread-list load

struct LoadFigures {
    var listBytes = 0
    var metadataBytes = 0
    var requestBytes = 0
    var toReady = Samples([])
    var toRequests = Samples([])
}

func measureThreadListLoad() throws -> LoadFigures {
    let threadIDs = (0..<threadCount).map { _ in CXoneID.random() }
    let threads = threadIDs.map { frames.thread($0) }
    let metadataEventIDs = threadIDs.map { _ in CXoneID.random() }
    var metadataFrames: [[UInt8]] = []
    for (number, (threadID, eventID)) in zip(threadIDs, metadataEventIDs).enumerated() {
        metadataFrames.append(try frames.threadMetadataLoaded(answering: eventID, lastMessage: frames.agentMessage(number, in: threadID)))
    }
    var figures = LoadFigures()
    figures.metadataBytes = metadataFrames.reduce(0) { $0 + $1.count }
    var toReady: [UInt64] = []
    var toRequests: [UInt64] = []

    for run in 0..<(warmUpRuns + runs) {
        var driver = try BenchDriver.connected(multiThread: true, frames: frames)
        guard let (command, fetchID) = driver.lastSent, command == .fetchThreadList else {
            throw BenchError(
                "a multi-thread machine did not send FetchThreadList once authorized (last sent: \(String(describing: driver.lastSent)))"
            )
        }
        let listFrame = try frames.threadListFetched(answering: fetchID, threads: threads)
        figures.listBytes = listFrame.count
        driver.nextEventIDs = metadataEventIDs
        let bytesBefore = driver.bytesSent

        let start = monotonicNanoseconds()
        try driver.carryOut(try driver.receive(listFrame))
        let listed = monotonicNanoseconds()
        var answered = 0
        for frame in metadataFrames where !driver.readyReported {
            try driver.carryOut(try driver.receive(frame))
            answered += 1
        }
        let ready = monotonicNanoseconds()

        guard driver.nextEventIndex == threadCount, case .loadThreadMetadata(let lastID)? = driver.lastSent?.command,
            CXoneID(lastID) == threadIDs[threadCount - 1]
        else {
            throw BenchError("the machine did not send one LoadThreadMetadata per listed thread, in list order (\(driver.nextEventIndex) sent)")
        }
        guard driver.readyReported, answered == threadCount, driver.machine.state == .ready, driver.pending.isEmpty,
            driver.machine.threads.count == threadCount, driver.machine.threads.allSatisfy({ $0.state == .loaded && $0.lastMessages.count == 1 })
        else {
            throw BenchError(
                "run \(run): after \(answered) of \(threadCount) metadata answers the machine is \(driver.machine.state) with \(driver.machine.threads.count) threads, \(driver.pending.count) requests unanswered"
            )
        }
        figures.requestBytes = driver.bytesSent - bytesBefore
        if run >= warmUpRuns {
            toReady.append(ready - start)
            toRequests.append(listed - start)
        }
    }
    figures.toReady = Samples(toReady)
    figures.toRequests = Samples(toRequests)
    return figures
}

/// What two back-to-back clock reads cost (the median of 10 000): part of every per-event figure.
func clockOverhead() -> UInt64 {
    var samples: [UInt64] = []
    for _ in 0..<10_000 {
        let before = monotonicNanoseconds()
        samples.append(monotonicNanoseconds() - before)
    }
    return Samples(samples).median
}

// MARK: Report

do {
    #if DEBUG
    print("(a debug build: these figures mean little; run it with swift run -c release)")
    #endif
    let dispatch = try measureDispatch()
    let load = try measureThreadListLoad()
    let rate = Double(events) / (Double(dispatch.throughputNanoseconds) / 1e9)
    let width = 50
    print("CXone dispatch, in-process (CXoneCore decode + ChatWireInput + ChatStateMachine), no network")
    print("")
    print(Format.pad("measurement", width) + Format.pad("count", 14) + "figure")
    print(
        Format.pad("MessageCreated, whole loop", width) + Format.pad(Format.grouped(events), 14)
            + "\(Format.grouped(Int(rate.rounded()))) events/s (\(Format.nanoseconds(dispatch.throughputNanoseconds / UInt64(events))) per event)"
    )
    print(
        Format.pad("MessageCreated, each frame timed alone", width) + Format.pad(Format.grouped(events), 14)
            + "median \(Format.nanoseconds(dispatch.perEvent.median))   p99 \(Format.nanoseconds(dispatch.perEvent.percentile(0.99)))   max \(Format.nanoseconds(dispatch.perEvent.sorted.last ?? 0))"
    )
    print(
        Format.pad("  of which CXoneInbound.decode", width) + Format.pad(Format.grouped(events), 14)
            + "\(Format.nanoseconds(dispatch.decodeNanoseconds / UInt64(events))) per event (whole loop, decode only)"
    )
    print(
        Format.pad("  of which decode + ChatWireInput.input", width) + Format.pad(Format.grouped(events), 14)
            + "\(Format.nanoseconds(dispatch.decodeAndMapNanoseconds / UInt64(events))) per event (whole loop, no machine)"
    )
    print(
        Format.pad("thread list of \(threadCount) → ready", width) + Format.pad("\(runs) runs", 14)
            + "median \(Format.milliseconds(load.toReady.median))   min \(Format.milliseconds(load.toReady.minimum))"
    )
    print(
        Format.pad("  of which ThreadListFetched → \(threadCount) requests", width) + Format.pad("\(runs) runs", 14)
            + "median \(Format.milliseconds(load.toRequests.median))   min \(Format.milliseconds(load.toRequests.minimum))"
    )
    print("")
    print(
        "encoded sizes: MessageCreated \(Format.bytes(dispatch.frameBytes)) (mean); ThreadListFetched of \(threadCount) threads \(Format.bytes(load.listBytes));"
    )
    print(
        "  ThreadMetadataLoaded \(Format.bytes(load.metadataBytes / threadCount)) (mean), \(Format.bytes(load.metadataBytes)) for \(threadCount);"
            + " the \(threadCount) LoadThreadMetadata requests sent \(Format.bytes(load.requestBytes))"
    )
    print("per-frame figures include one clock-read pair (\(Format.nanoseconds(clockOverhead())) median)")
} catch {
    print("attendant-cxone-dispatch: \(error)")
    exit(1)
}
