package import AttendantPluginAPI
import Foundation
import Glibc
import Synchronization

/// The secrets channels keep across restarts (a CXone customer access token): one JSON file,
/// `<state directory>/secrets.json`, mode 0600, apart from the state database so that no secret is
/// ever in it (DESIGN.md section 7).
///
/// Each write replaces the file atomically (a 0600 temporary file, fsync, rename, fsync of the folder):
/// after a crash the file holds either the old or the new secrets, never a mix.
package final class SecretsFile: Sendable {
    package let path: String
    /// Channel → key → secret; nil until first read.
    private let secrets = Mutex<[String: [String: String]]?>(nil)

    package init(directory: String) {
        self.path = directory + "/secrets.json"
    }

    /// A channel's view of the file.
    package func channelSecrets(for channel: String) -> any ChannelSecrets {
        ChannelSecretsView(file: self, channel: channel)
    }

    func secret(channel: String, key: String) throws -> String? {
        try self.withSecrets { $0[channel]?[key] }
    }

    func setSecret(_ value: String?, channel: String, key: String) throws {
        try self.withSecrets { secrets in
            guard secrets[channel]?[key] != value else { return }
            var updated = secrets
            updated[channel, default: [:]][key] = value
            if updated[channel]?.isEmpty == true { updated[channel] = nil }
            try self.write(updated)
            secrets = updated
        }
    }

    private func withSecrets<T>(_ body: (inout [String: [String: String]]) throws -> T) throws -> T {
        try self.secrets.withLock { cached in
            var secrets = try cached ?? self.read()
            defer { cached = secrets }
            return try body(&secrets)
        }
    }

    private func read() throws -> [String: [String: String]] {
        let fd = open(self.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return [:] }
            throw SystemError("cannot open the secrets file", self.path)
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            close(fd)
            throw SystemError("cannot inspect the secrets file", self.path)
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        guard status.st_mode & 0o077 == 0 else {
            throw SecretsFileError(
                "the secrets file \(self.path) can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); run: chmod 600 \(self.path)"
            )
        }
        let data = try handle.readToEnd() ?? Data()
        guard !data.isEmpty else { return [:] }
        guard let secrets = try? JSONDecoder().decode([String: [String: String]].self, from: data) else {
            throw SecretsFileError(
                "the secrets file \(self.path) is not valid; move it away to start without stored secrets (channels then sign in again)"
            )
        }
        return secrets
    }

    private func write(_ secrets: [String: [String: String]]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(secrets)
        let temporary = self.path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SystemError("cannot create", temporary) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(fd) == 0 else {
            let error = SystemError("cannot write", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, self.path) == 0 else {
            let error = SystemError("cannot replace", self.path)
            unlink(temporary)
            throw error
        }
        let folder = open((self.path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}

struct SecretsFileError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One channel's secrets in the daemon's ``SecretsFile``.
struct ChannelSecretsView: ChannelSecrets {
    let file: SecretsFile
    let channel: String

    func secret(forKey key: String) async throws -> String? {
        try self.file.secret(channel: self.channel, key: key)
    }

    func setSecret(_ value: String?, forKey key: String) async throws {
        try self.file.setSecret(value, channel: self.channel, key: key)
    }
}
