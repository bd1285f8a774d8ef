import AttendantControl
import Foundation
import Glibc
import Systemd
import TestSupport
import Testing

/// `attendantctl monitor` against the test peer: one line per signal, daemon stops and starts, exit 0
/// on SIGINT and SIGTERM, exit 1 when the bus goes away.
@Suite(.timeLimit(.minutes(2))) struct MonitorTests {
    static func startMonitor(_ arguments: [String], bus: PrivateBus) async throws -> CommandProcess {
        let monitor = try CommandProcess(BuildProducts.attendantctl, ["monitor"] + arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let ready = await monitor.waitFor { $0.stderr.contains("Monitoring attendantd") }
        #expect(ready, "monitor did not start: \(monitor.stderr)")
        return monitor
    }

    @Test func jsonLinesUntilSIGINT() async throws {
        let bus = try await PrivateBus()
        var peer = try await ControlPeer.start(on: bus.address)
        let monitor = try await Self.startMonitor(["--json"], bus: bus)

        await peer.emit(.channelStateChanged(channel: "desk", state: "recovering", detail: "connection refused"))
        await peer.emit(.channelEvent(channel: "desk", event: "incoming-contact", details: ["contact": .string("desk-3"), "kind": .string("call")]))
        await peer.emit(.doNotDisturbChanged(true))
        #expect(await monitor.waitFor { $0.stdoutLines.count == 3 }, "\(monitor.stdout)")

        // The daemon stops and comes back.
        await peer.stop()
        #expect(await monitor.waitFor { $0.stdoutLines.count == 4 }, "\(monitor.stdout)")
        peer = try await ControlPeer.start(on: bus.address)
        #expect(await monitor.waitFor { $0.stdoutLines.count == 5 }, "\(monitor.stdout)")

        let objects = try monitor.stdoutLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        #expect(
            objects.map { $0["signal"] as? String } == [
                "ChannelStateChanged", "ChannelEvent", "DoNotDisturbChanged", "NameOwnerChanged", "NameOwnerChanged",
            ]
        )
        #expect(objects.allSatisfy { $0["time"] is Int })
        #expect(objects[0]["state"] as? String == "recovering" && objects[0]["detail"] as? String == "connection refused")
        #expect(objects[1]["event"] as? String == "incoming-contact")
        #expect((objects[1]["details"] as? [String: Any])?["contact"] as? String == "desk-3")
        #expect(objects[2]["doNotDisturb"] as? Bool == true)
        #expect(objects[3]["running"] as? Bool == false && objects[4]["running"] as? Bool == true)

        monitor.signal(SIGINT)
        #expect(await monitor.waitForExit() == 0, "\(monitor.stderr)")
        await peer.stop()
    }

    @Test func textLinesUntilSIGTERM() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let monitor = try await Self.startMonitor([], bus: bus)
        await peer.emit(
            .channelEvent(channel: "desk", event: "contact-ended", details: ["contact": .string("desk-3"), "outcome": .string("missed")])
        )
        await peer.emit(.channelStateChanged(channel: "ghost", state: "failed", detail: "sign-in needed: token rejected"))
        // dnd goes through the daemon, whose change comes back as a signal.
        let dnd = try await attendantctl(["dnd", "on"], bus: bus.address)
        #expect(dnd.status == 0)
        #expect(await monitor.waitFor { $0.stdoutLines.count == 3 }, "\(monitor.stdout)")
        let lines = monitor.stdoutLines
        #expect(lines[0].hasSuffix("  desk  contact-ended  contact=desk-3 outcome=missed"))
        #expect(lines[1].hasSuffix("  ghost  state failed: sign-in needed: token rejected"))
        #expect(lines[2].hasSuffix("  do-not-disturb on"))
        #expect(lines.allSatisfy { $0.prefix(19).allSatisfy { $0.isNumber || $0 == "-" || $0 == ":" || $0 == " " } })
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit() == 0, "\(monitor.stderr)")
        await peer.stop()
    }

    @Test func theBusGoingAwayEndsItWithStatusOne() async throws {
        let bus = try await PrivateBus()
        let peer = try await ControlPeer.start(on: bus.address)
        let monitor = try await Self.startMonitor([], bus: bus)
        bus.stop()
        #expect(await monitor.waitForExit() == 1)
        #expect(monitor.stderr.contains("attendantctl: the connection to the session bus closed"))
        await peer.stop()
    }
}
