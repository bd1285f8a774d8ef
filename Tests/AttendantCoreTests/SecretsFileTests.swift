import AttendantPluginAPI
import Foundation
import Glibc
import TestSupport
import Testing

@testable import AttendantCore

/// The secrets file beside the state database: per-channel secrets that survive a restart, mode 0600,
/// refused when others can read it, named when it is damaged.
@Suite struct SecretsFileTests {
    @Test func secretsSurviveANewInstanceAndStayPerChannel() async throws {
        let folder = try makeTemporaryFolder("attendant-secrets")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = SecretsFile(directory: folder)
        try await file.channelSecrets(for: "chat").setSecret("token-one", forKey: "access-token")
        try await file.channelSecrets(for: "other").setSecret("token-two", forKey: "access-token")

        var status = stat()
        #expect(stat(file.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)

        let reopened = SecretsFile(directory: folder)
        #expect(try await reopened.channelSecrets(for: "chat").secret(forKey: "access-token") == "token-one")
        #expect(try await reopened.channelSecrets(for: "other").secret(forKey: "access-token") == "token-two")
        #expect(try await reopened.channelSecrets(for: "third").secret(forKey: "access-token") == nil)

        try await reopened.channelSecrets(for: "chat").setSecret(nil, forKey: "access-token")
        let again = SecretsFile(directory: folder)
        #expect(try await again.channelSecrets(for: "chat").secret(forKey: "access-token") == nil)
        #expect(try await again.channelSecrets(for: "other").secret(forKey: "access-token") == "token-two")
        #expect(!FileManager.default.fileExists(atPath: file.path + ".new"))
    }

    @Test func aFileOthersCanReadOrThatIsDamagedIsRefusedWithWhatToDo() async throws {
        let folder = try makeTemporaryFolder("attendant-secrets")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = SecretsFile(directory: folder)
        try await file.channelSecrets(for: "chat").setSecret("token-one", forKey: "access-token")
        chmod(file.path, 0o644)
        await #expect {
            _ = try await SecretsFile(directory: folder).channelSecrets(for: "chat").secret(forKey: "access-token")
        } throws: { error in
            "\(error)" == "the secrets file \(file.path) can be read by other users (mode 644); run: chmod 600 \(file.path)"
        }
        chmod(file.path, 0o600)
        try "{not json".write(toFile: file.path, atomically: false, encoding: .utf8)
        await #expect {
            _ = try await SecretsFile(directory: folder).channelSecrets(for: "chat").secret(forKey: "access-token")
        } throws: { error in
            "\(error)".contains("is not valid; move it away")
        }
    }
}
