import Glibc
import Synchronization

/// `token-file` and `token-credential`: a file's contents, trimmed, read again at every renewal (so a
/// tool that rewrites the file hands the daemon new tokens). A token file that other users may read or
/// write is refused.
///
/// A credential is the file `$CREDENTIALS_DIRECTORY/NAME` that systemd provides to the unit with
/// `LoadCredential=NAME:/path` or `LoadCredentialEncrypted=NAME:/path` (decrypted, readable only by
/// the service, never on disk unencrypted).
struct FileTokenSource: TokenSource {
    enum Location: Sendable {
        case file(String)
        case credential(String, directory: String?)
    }

    let path: Location
    let description: String
    /// A token file is small; anything bigger is refused before it is read.
    static let sizeLimit = 1024 * 1024
    /// The file as the last read found it, so that a write between that read and the start of the watch is
    /// not left for the next retry.
    private let lastRead = LastRead()

    init(path: Location, description: String) {
        self.path = path
        self.description = description
    }

    func fetch() async throws -> String {
        let file: String
        let help: String
        switch self.path {
        case .file(let path):
            file = path
            help = ""
        case .credential(let name, let directory?):
            file = directory + "/" + name
            help = "; does the unit have LoadCredential=\(name):… (or LoadCredentialEncrypted=)?"
        case .credential(let name, nil):
            throw TokenError(
                .source,
                "\(self.description): $CREDENTIALS_DIRECTORY is not set, so attendantd did not get credentials from systemd; add LoadCredential=\(name):/path/to/token (or LoadCredentialEncrypted=) to the unit, or use token-file"
            )
        }
        // O_NONBLOCK: a FIFO without a writer must not hang the daemon; it is refused below anyway.
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw self.failure(file, errno, help) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw self.failure(file, errno, help) }
        self.lastRead.record(info)
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw TokenError(.source, "\(self.description): \(file) is not a regular file")
        }
        if case .file = self.path, info.st_mode & 0o077 != 0 {
            // Like ssh with a private key: a token others may read is no longer the user's secret.
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw TokenError(
                .source,
                "\(self.description): \(file) can be read or changed by other users (mode 0\(mode)); make it private with chmod 600 \(file)"
            )
        }
        guard info.st_size <= Self.sizeLimit else {
            throw TokenError(
                .malformed,
                "\(self.description): \(file) has \(info.st_size) bytes, far more than a token; it must hold the token alone"
            )
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= Self.sizeLimit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw self.failure(file, errno, help)
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A `token-file` is watched: a token written into it is read at once. A systemd credential does not
    /// change while the unit runs.
    func watchChanges(_ onChange: @escaping @Sendable () -> Void) async throws(TokenError) {
        guard case .file(let path) = self.path else { return }
        let watcher = try TokenFileWatcher(path: path)
        var now = stat()
        if stat(path, &now) == 0, self.lastRead.differs(from: now) { onChange() }
        await watcher.run(onChange)
    }

    private func failure(_ file: String, _ code: Int32, _ help: String) -> TokenError {
        TokenError(.source, "\(self.description): cannot read \(file): \(String(cString: strerror(code)))\(help)")
    }
}

/// Which file a read found (device and inode) and how it was then (size, modification time).
private final class LastRead: Sendable {
    private struct Signature: Equatable {
        var device: UInt, inode: UInt, size: Int, seconds: Int, nanoseconds: Int

        init(_ info: stat) {
            self.device = UInt(info.st_dev)
            self.inode = UInt(info.st_ino)
            self.size = Int(info.st_size)
            self.seconds = info.st_mtim.tv_sec
            self.nanoseconds = info.st_mtim.tv_nsec
        }
    }

    private let signature = Mutex<Signature?>(nil)

    func record(_ info: stat) { self.signature.withLock { $0 = Signature(info) } }

    /// Whether the file is another than, or changed since, the last read; false before any read.
    func differs(from info: stat) -> Bool {
        self.signature.withLock { $0.map { $0 != Signature(info) } ?? false }
    }
}
