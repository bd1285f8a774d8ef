import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import Glibc
import TestSupport
import Testing

@testable import AttendantCore

extension TokenManagerTests {
    /// Writes `text` to `path`, readable by its owner only, by renaming a new file over it (as tools do).
    static func writeTokenFile(_ text: String, to path: String) throws {
        try text.write(toFile: path + ".new", atomically: false, encoding: .utf8)
        #expect(chmod(path + ".new", 0o600) == 0)
        #expect(rename(path + ".new", path) == 0)
    }

    @Test func aTokenSourceWithoutAValidTokenSaysWhyAndOneWithoutASourceSaysSo() async throws {
        let source = ScriptedTokenSource()
        let h = Harness(source: source)
        let expired = TokenError(
            .expired,
            "the token from token command /usr/local/bin/scripted expired at 2027-01-15T08:00:00Z (1 h ago); the source gave an old token"
        )
        source.script(.fail(expired))
        let run = h.start()
        #expect(await h.manager.state() == .unavailable(reason: expired.message))
        source.script(.token(h.jwt(issued: 0)))
        _ = try await h.manager.renew()
        #expect(await h.manager.state() == .available(ChannelToken(value: h.jwt(issued: 0), expiresAt: h.clock.epoch + .seconds(3600))))
        #expect(await NoTokenKeeper(channelName: "desk").state() == .noSource)
        run.cancel()
        await run.value
    }

    @Test func aTokenWrittenIntoTheTokenFileIsReadAtOnceNotAtTheNextRetry() async throws {
        let folder = try makeTemporaryFolder("attendant-token-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/phone.token"
        let source = FileTokenSource(path: .file(path), description: "token file \(path)")
        let h = Harness(source: source)
        try Self.writeTokenFile(h.jwt(issued: -7200), to: path)
        let run = h.start()
        guard case .unavailable(let reason) = await h.manager.state() else {
            Issue.record("an expired token in the file is no valid token")
            return
        }
        #expect(reason.contains("expired"), "\(reason)")

        // The manual clock never moves: only the watch on the file can bring the new token in.
        try Self.writeTokenFile(h.jwt(issued: 0), to: path)
        let deadline = ContinuousClock.now + .seconds(60)
        while h.renewals.all.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(h.renewals.all.map(\.value) == [h.jwt(issued: 0)])
        #expect(await h.manager.state().token?.value == h.jwt(issued: 0))
        run.cancel()
        await run.value
    }

    /// The keeper reads the file before its watch on it begins; a token written in between is not left for
    /// the next retry (CI once hit that gap: the test above waited in vain).
    @Test func aTokenWrittenBetweenTheFirstReadAndTheWatchCountsAsAChange() async throws {
        let folder = try makeTemporaryFolder("attendant-token-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/phone.token"
        let source = FileTokenSource(path: .file(path), description: "token file \(path)")
        try Self.writeTokenFile("first", to: path)
        #expect(try await source.fetch() == "first")
        try Self.writeTokenFile("second", to: path)

        let changes = Locked(0)
        let watching = Task { try? await source.watchChanges { changes.withLock { $0 += 1 } } }
        let deadline = ContinuousClock.now + .seconds(60)
        while changes.withLock({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        watching.cancel()
        await watching.value
        #expect(changes.withLock { $0 } == 1, "the write before the watch began is a change")

        // Read since: a new watch has nothing to report.
        #expect(try await source.fetch() == "second")
        let again = Task { try? await source.watchChanges { changes.withLock { $0 += 1 } } }
        try await Task.sleep(for: .milliseconds(300))
        again.cancel()
        await again.value
        let total = changes.withLock { $0 }
        #expect(total == 1, "nothing changed after the last read")
    }

    /// A token file whose folder cannot be watched: the keeper says why in its log, and the file is read on
    /// the renewal schedule only.
    @Test func aTokenFileThatCannotBeWatchedSaysWhy() async throws {
        let path = "/nonexistent-attendant-folder/phone.token"
        let source = FileTokenSource(path: .file(path), description: "token file \(path)")
        let why =
            "cannot watch /nonexistent-attendant-folder for \(path): No such file or directory, so a token written into it is read at the renewal times only"
        await #expect(throws: TokenError(.source, why)) { try await source.watchChanges {} }
        let h = Harness(source: source)
        let run = h.start()
        let deadline = ContinuousClock.now + .seconds(60)
        while !h.records.text.contains("cannot watch"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(h.records.text.contains("token file \(path): \(why)"), "\(h.records.text)")
        run.cancel()
        await run.value
    }
}
