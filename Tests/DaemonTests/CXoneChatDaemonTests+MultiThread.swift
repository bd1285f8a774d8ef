import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Multi-thread channels: the thread list fetched and each thread loaded, across a restart.
extension CXoneChatDaemonTests {
    @Test func multiThreadFetchesTheThreadListLoadsEachAndOpensOne() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.receivedEvents(simulator).contains("FetchThreadList"))

        // Two threads, each created (pending) then sent to.
        var ids: [String] = []
        for text in ["Billing question", "Delivery question"] {
            let (status, output) = try await Self.chat(["create", "--json"], bus: bus)
            #expect(status == 0, "\(output)")
            let created = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
            #expect(created["state"] as? String == "pending", "\(created)")
            let id = try #require(created["id"] as? String)
            ids.append(id)
            await #expect(try Self.chat(["send", "--thread", id, text], bus: bus).status == 0)
        }
        try await eventually("both threads at the gateway") { try await Self.gatewayThreads(simulator).count == 2 }
        await Self.stop(daemon)

        // After a restart: FetchThreadList, then each thread's metadata (its last message).
        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        let events = try await Self.receivedEvents(simulator)
        #expect(events.filter { $0 == "FetchThreadList" }.count == 2)
        #expect(events.filter { $0 == "LoadThreadMetadata" }.count == 2, "\(events)")
        let listed = try await Self.threads(bus: bus)
        #expect(Set(listed.compactMap { $0["id"] as? String }) == Set(ids))
        #expect(Set(listed.compactMap { $0["state"] as? String }) == ["loaded"], "\(listed)")
        #expect(Set(listed.map { Self.texts($0) }) == [["Billing question"], ["Delivery question"]])

        // openThread recovers it: ready, with its messages.
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(ids[0])&text=About%20your%20bill")
        let (status, output) = try await Self.chat(["open", ids[0], "--json"], bus: bus)
        #expect(status == 0, "\(output)\n\(daemon.stderr)")
        let opened = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        #expect(opened["state"] as? String == "ready", "\(opened)")
        #expect(Self.texts(opened) == ["Billing question", "About your bill"])
        // Recovered, then marked read as it was shown (MessageSeenByCustomer, as the SDK's markRead).
        try await eventually("RecoverThread then MessageSeenByCustomer") {
            try await Self.receivedEvents(simulator).suffix(2) == ["RecoverThread", "MessageSeenByCustomer"]
        }
        await Self.stop(daemon)
    }

    /// A thread that reaches the thread list after the daemon last had it is recovered whole at the next
    /// start. What the agent wrote in it since is news, an alert and a contact: written while the daemon
    /// was stopped, as after a SIGKILL (the full-size fault campaign lost such threads). What was written
    /// long before, in 2022, is history: no event and no contact, when listed or opened. What comes
    /// afterwards is news.
    @Test func aThreadListedAfterARestartIsNewsButItsOldHistoryIsNot() async throws {
        let simulator = try await Simulator(["--cxone-multi-thread"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        var daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "Hello"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let customer = try #require(try await Self.gatewayThreads(simulator).first?["customer"] as? String)
        await Self.stop(daemon)

        // While the daemon is stopped, a conversation from 2022 reaches the list (its messages dated then),
        // and an agent opens a new one.
        let opened = try await simulator.controlJSON(
            "POST",
            "/control/cxone/agent?customer=\(customer)&text=Your%20order%20from%202022&at=1656000000"
        )
        let threadID = try #require(opened["thread_id"] as? String).lowercased()
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Is%20it%20still%20wanted%3F&at=1656000060")
        let fresh = try await simulator.controlJSON("POST", "/control/cxone/agent?customer=\(customer)&text=Are%20you%20there%3F")
        let freshID = try #require(fresh["thread_id"] as? String).lowercased()
        func contacts() async throws -> [[String: Any]] {
            let (status, output) = try await TokenDaemonTests.ctl(["contacts", "--json"], bus: bus)
            guard status == 0 else { throw FixtureError("contacts failed (\(status)): \(output)") }
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        }

        daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        // The new thread's message: news, once, and a contact.
        try await eventually("the new thread's message") { daemon.stderr.contains("in thread \(freshID), from-agent from Ada Lovelace") }
        try await eventually("the new thread in the contact history") { try await contacts().count == 1 }
        let listed = try await Self.threads(bus: bus).first { $0["id"] as? String == threadID }
        #expect(Self.texts(listed) == ["Your order from 2022", "Is it still wanted?"], "\(String(describing: listed))")
        let (status, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
        #expect(status == 0, "\(output)\n\(daemon.stderr)")
        let thread = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        #expect(Self.texts(thread) == ["Your order from 2022", "Is it still wanted?"], "\(thread)")
        #expect(!daemon.stderr.contains("in thread \(threadID), from-agent from Ada Lovelace"), "\(daemon.stderr)")
        await #expect(try contacts().count == 1)

        // The agent writes in the old one now: news, once, and the thread is a contact.
        _ = try await simulator.control("POST", "/control/cxone/agent?thread=\(threadID)&text=Hello%20again")
        try await eventually("the new agent message") { daemon.stderr.contains("in thread \(threadID), from-agent from Ada Lovelace") }
        try await eventually("the thread in the contact history") { try await contacts().count == 2 }
        #expect(daemon.stderr.components(separatedBy: "from-agent from Ada Lovelace").count - 1 == 2, "\(daemon.stderr)")
        await Self.stop(daemon)
    }
}
