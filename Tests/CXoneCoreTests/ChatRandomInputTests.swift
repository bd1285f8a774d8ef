import AttendantPluginAPI
import AttendantPluginKit
import CXoneCore
import TestSupport
import Testing

/// Thousands of random input sequences, including ones no well-behaved driver would send: the machine
/// never crashes, moves only along the states' edges, reports exactly the state it is in, keeps no
/// connection timer while disconnected, and keeps the outbox consistent.
@Suite(.cpuBound) struct ChatRandomInputTests {
    typealias Machine = ChatStateMachine

    /// The state changes the diagrams allow.
    static let edges: [ChatState: Set<ChatState>] = [
        .initial: [.preparing],
        .preparing: [.initial, .prepared],
        .prepared: [.connecting, .offline],
        .offline: [.preparing, .prepared, .connecting],
        .connecting: [.connected, .prepared],
        .connected: [.ready, .closed, .prepared, .connecting],
        .ready: [.prepared, .connecting, .closed],
        .closed: [.ready, .prepared, .connecting],
    ]
    static let threadStates: Set<ThreadState> = [.pending, .received, .loaded, .ready, .closed]

    @Test func randomInputsNeverBreakTheMachine() {
        var random = SeededRandom(seed: 20_261_122)
        var steps = 0
        var reached: Set<ChatState> = []
        var reachedThreadStates: Set<ThreadState> = []
        for sequence in 0..<3000 {
            var machine = Machine(
                stored: Bool.random(using: &random)
                    ? .init() : .init(visitorID: "v", customerID: "c", accessToken: ChannelToken(value: "t"), threadIDs: ["t1"]),
                random: ChatRandom(generator: SeededRandom(seed: UInt64(sequence)))
            )
            var timers: [ChatTimerID] = []
            var stale: [ChatTimerID] = []
            var outbox: Set<String> = Set(machine.outbox.map(\.messageID))
            var clock = 1_800_000_000.0
            for _ in 0..<Int.random(in: 1...80, using: &random) {
                steps += 1
                clock += Double(Int.random(in: 0...40, using: &random))
                let before = machine.state
                let actions = Self.step(&machine, timers: &timers, stale: stale, at: UnixTime(secondsSince1970: clock), random: &random)
                var state = before
                for action in actions {
                    switch action {
                    case .report(.stateChanged(let next)):
                        #expect(Self.edges[state]?.contains(next) == true, "\(state) → \(next) in sequence \(sequence)")
                        state = next
                    case .report(.threadUpdated(let thread)):
                        #expect(Self.threadStates.contains(thread.state))
                    case .setTimer(let id, _):
                        stale += timers.filter { $0.kind == id.kind }
                        timers.removeAll { $0.kind == id.kind }
                        timers.append(id)
                    case .cancelTimer(let id):
                        #expect(timers.contains(id), "cancelled \(id), which is not armed")
                        timers.removeAll { $0 == id }
                        stale.append(id)
                    case .persistOutbox(let entry):
                        #expect(outbox.insert(entry.messageID).inserted, "persisted \(entry.messageID) twice")
                    case .removeFromOutbox(let id):
                        #expect(outbox.remove(id) != nil, "removed \(id), which is not in the outbox")
                    default:
                        break
                    }
                }
                reached.insert(machine.state)
                reachedThreadStates.formUnion(machine.threads.map(\.state))
                #expect(state == machine.state, "reported \(state), is \(machine.state) (sequence \(sequence))")
                #expect(Set(machine.outbox.map(\.messageID)) == outbox)
                if [.initial, .preparing, .prepared, .offline].contains(machine.state) {
                    for timer in [Machine.Timer.heartbeat, .pongTimeout, .reconnect, .response] {
                        #expect(!machine.isArmed(timer), "\(timer) armed while \(machine.state)")
                    }
                }
                let ids = machine.threads.map { $0.id.lowercased() }
                #expect(Set(ids).count == ids.count, "a thread is listed twice")
                if machine.state == .offline { #expect(machine.mode == .liveChat) }
            }
        }
        #expect(steps > 100_000)
        // The sequences reach every state, so the checks above saw each of them.
        #expect(reached == Set(Self.edges.keys))
        #expect(reachedThreadStates == Self.threadStates)
    }

    /// One random input: a user operation, a driver result, or a timer (live or stale).
    static func step(
        _ machine: inout Machine,
        timers: inout [ChatTimerID],
        stale: [ChatTimerID],
        at now: UnixTime,
        random: inout SeededRandom
    ) -> [Machine.Action] {
        let threadIDs = ["t1", "t2", "T1"] + machine.threads.map(\.id)
        let threadID = threadIDs.randomElement(using: &random)!
        let message = ChatMessage(
            id: ["m1", "m2", "m3", "M1"].randomElement(using: &random)!
                + (Bool.random(using: &random) ? "" : (machine.outbox.first?.messageID ?? "")),
            threadID: threadID,
            direction: Bool.random(using: &random) ? .fromAgent : .toAgent,
            sender: Party(displayName: "A", address: "a"),
            text: "x",
            sentAt: now
        )
        let configuration = Machine.ChannelConfiguration(
            isLiveChat: Bool.random(using: &random),
            isAuthorizationEnabled: Bool.random(using: &random),
            multiThread: Bool.random(using: &random)
        )
        func attempt(_ operation: (inout Machine) throws -> [Machine.Action]) -> [Machine.Action] {
            let copy = machine
            do { return try operation(&machine) } catch {
                #expect(error is ChatError)
                #expect(
                    machine.state == copy.state && machine.threads == copy.threads && machine.outbox == copy.outbox,
                    "a refused operation changed the machine"
                )
                return []
            }
        }
        // Half the inputs are ones the current state expects, so the sequences get deep; half are anything.
        let expected: [ChatState: [Int]] = [
            .initial: [0], .preparing: [11, 13], .prepared: [1, 14, 2], .offline: [0, 1, 14, 10],
            .connecting: [15, 33], .connected: [18, 19, 20, 21, 22, 23, 23, 31],
            .ready: [3, 4, 4, 5, 7, 7, 20, 23, 24, 26, 27, 27, 32, 33, 17], .closed: [4, 17],
        ]
        let choice =
            Bool.random(using: &random)
            ? expected[machine.state]!.randomElement(using: &random)!
            : Int.random(in: 0..<36, using: &random)
        switch choice {
        case 0: return attempt { try $0.prepare(brandID: 1, channelID: "c") }
        case 1: return attempt { try $0.connect() }
        case 2: return attempt { try $0.viewPage(title: "p", url: "u", at: now) }
        case 3: return attempt { try $0.openThread(threadID: threadID) }
        case 4: return attempt { try $0.createThread(customFields: ["k": "v"]) }
        case 5, 6: return attempt { try $0.sendMessage(threadID: threadID, text: "hi", at: now) }
        case 7: return attempt { try $0.endConversation(threadID: Bool.random(using: &random) ? threadID : nil) }
        case 8: return machine.background(at: now)
        case 9: return machine.foreground()
        case 10: return machine.disconnect()
        case 11: return machine.handle(.channelConfigurationFetched(configuration))
        case 12: return machine.handle(.channelConfigurationFailed(ChatError(.server, "x")))
        case 13: return machine.handle(Bool.random(using: &random) ? .visitorStored : .visitorFailed(ChatError(.server, "x")))
        case 14:
            return machine.handle(
                Bool.random(using: &random) ? .availabilityFetched(online: Bool.random(using: &random)) : .availabilityFailed(ChatError(.server, "x"))
            )
        case 15, 16: return machine.handle(.socketOpened)
        case 17: return machine.handle(.socketClosed(reason: "x"))
        case 18: return machine.handle(.authorized(.init(id: "c2"), accessToken: Bool.random(using: &random) ? ChannelToken(value: "t2") : nil))
        case 19: return machine.handle(.reconnected)
        case 20:
            return machine.handle(
                .threadRecovered(
                    ChatThread(id: threadID, state: Bool.random(using: &random) ? .received : .closed, lastMessages: [message]),
                    caseID: "case-\(threadID)",
                    agent: nil
                )
            )
        case 21: return machine.handle(.threadRecoveryFailed(threadID: Bool.random(using: &random) ? threadID : nil))
        case 22: return machine.handle(.threadListFetched(Array(threadIDs.prefix(Int.random(in: 0...3, using: &random)))))
        case 23: return machine.handle(.threadMetadataLoaded(threadID: threadID, name: "n", lastMessage: Bool.random(using: &random) ? message : nil))
        case 24, 25: return machine.handle(.messageCreated(message, caseID: "case-\(threadID)"))
        case 26: return machine.handle(.proactiveAction(welcome: "welcome"))
        case 27: return machine.handle(.caseStatusChanged(caseID: "case-\(threadID)", status: Bool.random(using: &random) ? .closed : .open))
        case 28: return machine.handle(.eventInS3(url: "u\(Int.random(in: 0..<2, using: &random))", originEventType: "MessageCreated"))
        case 29:
            return machine.handle(
                .downloaded(
                    url: "u\(Int.random(in: 0..<2, using: &random))",
                    Bool.random(using: &random) ? .messageCreated(message, caseID: nil) : .socketClosed(reason: "x")
                )
            )
        case 30: return machine.handle(.downloadFailed(url: "u0", reason: "x"))
        case 31:
            return machine.handle(
                Bool.random(using: &random)
                    ? .operationError(
                        code: ["CustomerReconnectFailed", "RecoveringThreadFailed", "Other"].randomElement(using: &random)!,
                        message: "x"
                    )
                    : .serverError(message: "x")
            )
        case 32: return machine.handle(.pong)
        case 33, 34:
            guard let id = timers.randomElement(using: &random) else { return [] }
            timers.removeAll { $0 == id }
            return machine.timerFired(id)
        default:
            guard let id = stale.randomElement(using: &random) else { return [] }
            return machine.timerFired(id)
        }
    }
}
