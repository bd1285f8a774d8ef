/// RFC 3261's timer values (section 17.1.1.1 and table 4).
package struct SIPTimers: Sendable, Hashable {
    /// Round-trip estimate: the first retransmission interval (500 ms).
    package var t1: Duration = .milliseconds(500)
    /// The longest retransmission interval for non-INVITE requests and INVITE responses (4 s).
    package var t2: Duration = .seconds(4)
    /// How long a message can stay in the network (5 s).
    package var t4: Duration = .seconds(5)

    package init(t1: Duration = .milliseconds(500), t2: Duration = .seconds(4), t4: Duration = .seconds(5)) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
    }

    /// Timers B, F and H: 64·T1 (32 s), after which a transaction gives up.
    package var transactionTimeout: Duration { self.t1 * 64 }
}
