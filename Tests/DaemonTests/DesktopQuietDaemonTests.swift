import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 30 part 5, the desktop's own do-not-disturb through the real daemon: dunst under Xvfb paused with
/// `dunstctl set-paused true` (the switch of the notification server the desktop tests run), a Loopback
/// channel whose calls ring, and PulseAudio with a null sink. While paused, calls are recorded but neither
/// shown nor heard; when the pause ends, the calls that still ring are shown and heard.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DesktopQuietDaemonTests {
    @Test func whileDunstIsPausedCallsAreRecordedButNotShownOrHeard() async throws {
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let sound = try await SoundServer()
        defer { sound.stop() }
        _ = try await desktop.dunstctl("set-paused", "true")
        let config = try scratch.write("attendant.toml", DesktopAlertTests.configuration(interval: "300ms", caller: "Ada Lovelace"))
        let daemon = try DaemonProcess(
            ["--config", config],
            scratch: scratch,
            environment: desktop.environment.merging(sound.clientEnvironment) { $1 }
        )
        defer { daemon.signal(SIGTERM) }
        try #require(await daemon.waitForLog("ready: 2 channels listening"), "\(daemon.stderr)")
        try #require(await daemon.waitForLog("the desktop's do not disturb (dunst) is on"), "\(daemon.stderr)")

        // Calls arrive and are recorded; nothing is sent to dunst and nothing plays.
        try await eventually("two calls recorded") { daemon.stderr.components(separatedBy: ": recorded").count >= 3 }
        #expect(!desktop.notifyCalls.contains { $0.summary == "Incoming call from Ada Lovelace" }, "shown while paused")
        #expect(try await sound.streams(of: "Attendant").isEmpty)
        #expect(try await sound.peakLevel(over: 0.5) == 0)

        // The pause ends: the ringing calls are shown and heard.
        _ = try await desktop.dunstctl("set-paused", "false")
        try #require(await daemon.waitForLog("the desktop's do not disturb (dunst) is off"), "\(daemon.stderr)")
        try await eventually("a call shown") { desktop.notifyCalls.contains { $0.summary == "Incoming call from Ada Lovelace" } }
        try await eventually("the ring") { try await !sound.streams(of: "Attendant").isEmpty }
        #expect(try await sound.peakLevel(over: 0.5) > 0)
    }
}
