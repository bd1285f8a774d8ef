import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// `attendant-sim`'s KARTE flags, through the built binary.
extension KarteTrackTests {
    @Test func theExecutableTakesTheKeyCampaignsAndGzipFlags() async throws {
        let scratch = try makeTemporaryFolder("attendant-sim-karte")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let campaigns = scratch + "/campaigns.json"
        try #"[{"id":"file-campaign","kind":"popup","trigger":{"event_name":"view"},"title":"From a file"}]"#
            .write(toFile: campaigns, atomically: true, encoding: .utf8)
        let key = "0123456789abcdef0123456789abcdef"
        let sim = try await SimulatorProcess(["--karte-app-key", key, "--karte-campaigns", campaigns, "--karte-no-gzip-answers"])
        defer { if sim.process.isRunning { _ = sim.terminate() } }
        let base = try #require(sim.announcement["karte_base"] as? String)
        #expect(sim.announcement["karte_app_key"] as? String == key)
        let client = KarteTestClient(base: base, appKey: key)
        let answer = try await client.track([("view", ["view_name": "home"])], acceptGzip: true)
        #expect(answer.status == 200)
        #expect(answer.headers["content-encoding"].isEmpty)
        #expect((try answer.messages.first?["action"] as? [String: Any])?["campaign_id"] as? String == "file-campaign")
        #expect(!sim.errorOutput.contains(key), "the app key is never logged")
        #expect(sim.terminate() == 0)

        // A bad campaigns file stops it with a message naming the file.
        try #"[{"id":"x"}]"#.write(toFile: campaigns, atomically: true, encoding: .utf8)
        let (status, text) = try await run(SimulatorProcess.executable, ["--karte-campaigns", campaigns])
        #expect(status != 0)
        #expect(text.contains(campaigns))
        #expect(text.contains("kind"))
    }
}
