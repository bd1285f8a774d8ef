import SIPCore
import Testing

@Suite struct SIPOutboundTests {
    @Test func keepAlivesAreSentAt80To100PercentOfTheFlowTimer() {
        var generator = SeededGenerator(seed: 3)
        let intervals = (0..<500).map { _ in SIPOutbound.keepAliveInterval(flowTimer: 120, using: &generator) }
        #expect(intervals.allSatisfy { $0 >= .seconds(96) && $0 <= .seconds(120) })
        #expect(intervals.min()! < .seconds(98) && intervals.max()! > .seconds(118), "the whole range is used")
        let defaults = (0..<500).map { _ in SIPOutbound.keepAliveInterval(flowTimer: nil, using: &generator) }
        #expect(defaults.allSatisfy { $0 >= .seconds(95) && $0 <= .seconds(120) })
        #expect(SIPOutbound.keepAliveInterval(flowTimer: 0, using: &generator) >= .seconds(95))
        #expect(SIPOutbound.pongTimeout == .seconds(10))
    }

    @Test func flowRecoveryBacksOffToHalfAnHour() {
        var generator = SeededGenerator(seed: 4)
        for (failures, cap) in [(0, 30), (1, 60), (2, 120), (5, 960), (6, 1800), (40, 1800)] {
            for _ in 0..<50 {
                let delay = SIPOutbound.recoveryDelay(consecutiveFailures: failures, using: &generator)
                #expect(delay >= .seconds(cap) / 2 && delay <= .seconds(cap), "failures \(failures): \(delay)")
            }
        }
        #expect(SIPOutbound.recoveryDelay(consecutiveFailures: 0, allFlowsFailed: false, using: &generator) >= .seconds(45))
    }
}
