import ContactCenterSim
import SIPCore
import Testing

@Suite struct CallerTests {
    static func registered(_ transport: String) async throws -> (ContactCenterSimulator, TestUserAgent) {
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
        let agent = try await TestUserAgent.connect(transport, to: simulator)
        let response = try await agent.register(user: "alice", simulator: simulator, token: simulator.issueToken(identity: "alice"))
        #expect(response.statusCode == 200)
        return (simulator, agent)
    }

    static func placeCall(_ simulator: ContactCenterSimulator) async throws -> SimulatedCall {
        try await simulator.call(user: "alice", fromDisplayName: "Grace Hopper", fromURI: "sip:grace@sim.attendant.test")
    }

    @Test(arguments: ["udp", "tcp"], [302, 603, 480])
    func ringThenFinal(transport: String, status: Int) async throws {
        let (simulator, agent) = try await Self.registered(transport)
        defer {
            Task {
                await agent.close()
                await simulator.stop()
            }
        }

        let call = try await Self.placeCall(simulator)
        let invite = try await agent.receiveRequest(.invite)
        #expect(try invite.headers.callID == call.callID)
        #expect(try invite.headers.topVia.hasRFC3261Branch)
        #expect(try invite.headers.topVia.transport == transport.uppercased())
        #expect(try invite.headers.from.displayName == "Grace Hopper")
        #expect(try invite.headers.from.tag != nil)
        #expect(try invite.headers.to.uri.user == "alice")
        #expect(try invite.headers.cseq.method == .invite)
        #expect(try invite.headers.maxForwards == 70)
        #expect(try !invite.headers.contacts.isEmpty)
        #expect(invite.uri.port == agent.localPort, "sent to the registered contact")

        try await agent.answer(invite, 180)
        let ringing = try await call.waitForProvisional(180, timeout: .seconds(60))
        #expect(ringing.statusCode == 180)

        let softphone = SIPNameAddress(uri: try SIPURI(parsing: "sip:softphone@192.0.2.7"))
        try await agent.answer(invite, status, contact: status == 302 ? softphone : nil)
        // Read back with the plugin's parser: the simulator's serialiser and SIPCore must agree.
        let final = try await call.waitForFinal(timeout: .seconds(60)).parsedBySIPCore()
        #expect(final.statusCode == status)
        if status == 302 {
            #expect(try final.headers.contacts.first?.uri.user == "softphone")
            #expect(call.summary.redirectTo == "sip:softphone@192.0.2.7")
        }
        let ack = try await agent.receiveRequest(.ack)
        #expect(try ack.headers.topVia.branch == invite.headers.topVia.branch, "non-2xx ACK shares the INVITE's branch")
        #expect(try ack.headers.cseq == SIPCSeq(1, .ack))
        #expect(try ack.headers.to.tag == "uas1")

        // A retransmitted final is ACKed again.
        try await agent.answer(invite, status, contact: status == 302 ? softphone : nil)
        _ = try await agent.receiveRequest(.ack)
        #expect(call.summary.status == "completed")
        #expect(call.summary.finalCode == status)
    }

    @Test(arguments: ["udp", "tcp"])
    func cancelGets200And487(transport: String) async throws {
        let (simulator, agent) = try await Self.registered(transport)
        defer {
            Task {
                await agent.close()
                await simulator.stop()
            }
        }

        let call = try await Self.placeCall(simulator)
        let invite = try await agent.receiveRequest(.invite)
        try await agent.answer(invite, 180)
        try await call.waitForProvisional(timeout: .seconds(60))

        let answering = Task {
            let cancel = try await agent.receiveRequest(.cancel)
            #expect(try cancel.headers.topVia.branch == invite.headers.topVia.branch)
            #expect(try cancel.headers.cseq == SIPCSeq(1, .cancel))
            try await agent.answer(cancel, 200)
            try await agent.answer(invite, 487)
        }
        try await call.cancel()
        try await answering.value
        let ack = try await agent.receiveRequest(.ack)
        #expect(try ack.headers.topVia.branch == invite.headers.topVia.branch)
        #expect(call.summary.cancelled)
        #expect(call.summary.finalCode == 487)
    }

    @Test func udpRetransmitsUntilProvisional() async throws {
        let (simulator, agent) = try await Self.registered("udp")
        defer {
            Task {
                await agent.close()
                await simulator.stop()
            }
        }
        let call = try await Self.placeCall(simulator)
        let first = try await agent.receiveRequest(.invite)
        let again = try await agent.receiveRequest(.invite, timeout: .seconds(60))
        #expect(try again.headers.topVia.branch == first.headers.topVia.branch, "timer A retransmission")
        try await agent.answer(first, 180)
        try await call.waitForProvisional(timeout: .seconds(60))
        try await agent.answer(first, 603)
        #expect(try await call.waitForFinal(timeout: .seconds(60)).statusCode == 603)
    }

    @Test func callingAnUnregisteredUserThrows() async throws {
        let simulator = try await ContactCenterSimulator.start(SimulatorConfiguration())
        defer { Task { await simulator.stop() } }
        await #expect(throws: SimulatorError.self) { _ = try await Self.placeCall(simulator) }
    }
}
