import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// Issue 30 part 5, heard and not only seen: the real `attendantd` registered at kamailio rings through
/// libcanberra into a real PulseAudio (a null sink, read back with pactl and parec) while a baresip call
/// rings, until the caller hangs up; under do-not-disturb the call is recorded but not heard.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CallRingTests {
    struct Rig {
        let peers: VoicePeers
        let sound: SoundServer
        let phone: SIPVoiceDaemonTests.Phone

        func stop() {
            self.peers.stop()
            self.sound.stop()
        }

        /// attendantd's streams on the sound server.
        func ring() async throws -> [[String: String]] { try await self.sound.streams(of: "Attendant") }
    }

    static func rig(alerts: String = "") async throws -> Rig {
        let peers = try await VoicePeers()
        let sound = try await SoundServer()
        let phone = try await SIPVoiceDaemonTests.phone(peers, top: alerts.isEmpty ? "" : "[alerts]\n" + alerts, environment: sound.clientEnvironment)
        _ = try await phone.channel { $0["state"] as? String == "listening" }
        return Rig(peers: peers, sound: sound, phone: phone)
    }

    @Test func aRingingCallIsHeardUntilTheCallerHangsUp() async throws {
        let rig = try await Self.rig()
        defer { rig.stop() }
        let call = try await rig.peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice")
        let ringing = try await rig.phone.contact("ringing from Ada") { $0["from"] as? String == "Ada Lovelace" }
        let id = try #require(ringing["id"] as? String)

        // The sound theme's phone-incoming-call plays, as a stream of Attendant's, and it is not silence.
        var streams: [[String: String]] = []
        try await eventually("attendantd to ring; log:\n\(rig.phone.daemon.stderr)") {
            streams = try await rig.ring()
            return !streams.isEmpty
        }
        #expect(streams.first?["event.id"] == "phone-incoming-call", "\(streams)")
        #expect(try await rig.sound.peakLevel(over: 0.6) > 0, "the null sink heard nothing")

        // The caller hangs up: the call is missed and the ring stops.
        try await call.hangUp()
        _ = try await rig.phone.contact("missed") { $0["id"] as? String == id && $0["outcome"] as? String == "missed" }
        try await eventually("the ring to stop") { try await rig.ring().isEmpty }
        #expect(try await rig.sound.peakLevel(over: 0.6) == 0, "still heard after the call ended")
        #expect(!rig.phone.daemon.stderr.contains("cannot ring"), "\(rig.phone.daemon.stderr)")
        await call.stop()
    }

    @Test func underDoNotDisturbACallIsRecordedButNotHeardUntilTheSwitchGoesOff() async throws {
        let rig = try await Self.rig()
        defer { rig.stop() }
        let on = try await rig.phone.ctl("dnd", "on")
        #expect(on.status == 0, "\(on)")
        let call = try await rig.peers.call(from: "grace", displayName: "Grace Hopper", to: "alice")
        try await call.waitForProgress(180)
        let id = try #require(try await rig.phone.contact("ringing from Grace") { $0["from"] as? String == "Grace Hopper" }["id"] as? String)
        // Recorded and ringing, yet nothing plays (and nothing is shown).
        #expect(try await rig.sound.peakLevel(over: 1) == 0)
        #expect(try await rig.ring().isEmpty)

        // The switch goes off while the call still rings: it is heard now.
        #expect(try await rig.phone.ctl("dnd", "off").status == 0)
        try await eventually("the ring after do-not-disturb went off") { try await !rig.ring().isEmpty }
        // Declined: the ring stops.
        #expect(try await rig.phone.ctl("decline", id).status == 0)
        #expect(try await call.waitForFinalResponse().status == 603)
        try await eventually("the ring to stop after the decline") { try await rig.ring().isEmpty }
        await call.stop()
    }

    /// A minute of a 440 Hz tone as a WAV file (mono, 16-bit, 8 kHz): longer than any wait here, so a ring
    /// that stops did so because it was cancelled, not because the sound ended.
    static func longTone(in folder: String) throws -> String {
        let rate = 8000
        let seconds = 60
        var samples = [UInt8]()
        samples.reserveCapacity(rate * seconds * 2)
        for index in 0..<(rate * seconds) {
            let value = Int16(8000 * sin(2 * Double.pi * 440 * Double(index) / Double(rate)))
            withUnsafeBytes(of: value.littleEndian) { samples += $0 }
        }
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) } }
        func le16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(value).littleEndian) { Array($0) } }
        let header =
            Array("RIFF".utf8) + le32(36 + samples.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
            + le32(rate) + le32(rate * 2) + le16(2) + le16(16) + Array("data".utf8) + le32(samples.count)
        let path = folder + "/tone.wav"
        try Data(header + samples).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aConfiguredSoundFileRingsIsCancelledWhenTheCallEndsAndOneThatIsNotThereIsLogged() async throws {
        let folder = try makeTemporaryFolder("attendant-ring-sound")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bell = try Self.longTone(in: folder)
        let rig = try await Self.rig(alerts: "ring-sound = \"\(bell)\"")
        defer { rig.stop() }
        let call = try await rig.peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice")
        var streams: [[String: String]] = []
        try await eventually("the configured sound to play; log:\n\(rig.phone.daemon.stderr)") {
            streams = try await rig.ring()
            return !streams.isEmpty
        }
        #expect(streams.first?["media.filename"] == bell, "\(streams)")
        try await call.hangUp()
        // Within this wait, far less than the minute the tone lasts: the sound was cancelled.
        try await eventually("the ring to stop") { try await rig.ring().isEmpty }
        await call.stop()

        let missing = try await Self.rig(alerts: "ring-sound = \"/nonexistent/ring.oga\"")
        defer { missing.stop() }
        let second = try await missing.peers.call(from: "alan", displayName: "Alan Turing", to: "alice")
        _ = try await missing.phone.contact("ringing from Alan") { $0["from"] as? String == "Alan Turing" }
        try #require(await missing.phone.daemon.waitForLog("cannot ring for the incoming call"), "\(missing.phone.daemon.stderr)")
        #expect(missing.phone.daemon.stderr.contains("/nonexistent/ring.oga"), "\(missing.phone.daemon.stderr)")
        #expect(try await missing.ring().isEmpty)
        await second.stop()
    }

    @Test func withRingOffNothingPlays() async throws {
        let rig = try await Self.rig(alerts: "ring = false")
        defer { rig.stop() }
        let call = try await rig.peers.call(from: "ada", displayName: "Ada Lovelace", to: "alice")
        try await call.waitForProgress(180)
        _ = try await rig.phone.contact("ringing from Ada") { $0["from"] as? String == "Ada Lovelace" }
        #expect(try await rig.sound.peakLevel(over: 1) == 0)
        #expect(try await rig.ring().isEmpty)
        await call.stop()
    }
}
