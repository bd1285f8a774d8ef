import Glibc
import Synchronization

/// Watches one file with inotify and calls back when it is written or replaced, so a token written into
/// a `token-file` is read at once instead of at the next retry.
///
/// It watches the file's folder, not the file: tools replace token files by renaming a new file over the
/// old one, which a watch on the old file's inode would never see. The watching thread sleeps in `poll`
/// and costs nothing while nothing changes; a pipe wakes it to stop.
final class TokenFileWatcher: Sendable {
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let name: String
    private let stopped = Mutex(false)

    /// Throws, saying why, when the folder cannot be watched (it does not exist, or the user is out of
    /// inotify instances or watches); the token is then read at the renewal schedule's times only.
    init(path: String) throws(TokenError) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        self.name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let later = "so a token written into it is read at the renewal times only"
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else {
            let limit = errno == EMFILE ? " (the user's inotify instances are all in use: fs.inotify.max_user_instances)" : ""
            throw TokenError(.source, "cannot watch \(path): inotify: \(String(cString: strerror(errno)))\(limit), \(later)")
        }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_ATTRIB)
        var fds: [Int32] = [0, 0]
        guard inotify_add_watch(inotify, folder, mask) >= 0, pipe(&fds) == 0 else {
            let reason = String(cString: strerror(errno))
            close(inotify)
            throw TokenError(.source, "cannot watch \(folder) for \(path): \(reason), \(later)")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.inotify = inotify
        self.stopPipe = (fds[0], fds[1])
    }

    deinit {
        close(self.inotify)
        close(self.stopPipe.read)
        close(self.stopPipe.write)
    }

    /// Calls `onChange` for every change of the file until the calling task is cancelled.
    func run(_ onChange: @escaping @Sendable () -> Void) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                Thread.detach { [self] in
                    self.watch(onChange)
                    finished.resume()
                }
            }
        } onCancel: {
            self.stop()
        }
    }

    private func stop() {
        let first = self.stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(self.stopPipe.write, &byte, 1)
        }
    }

    private func watch(_ onChange: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !self.stopped.withLock({ $0 }) {
            var fds = [
                pollfd(fd: self.inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: self.stopPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(self.inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            if self.names(in: buffer[0..<count]).contains(self.name) { onChange() }
        }
    }

    /// The names in a buffer of `inotify_event` records (fixed header, then a NUL-padded name).
    private func names(in bytes: ArraySlice<UInt8>) -> [String] {
        let header = MemoryLayout<inotify_event>.size
        var names: [String] = []
        var offset = bytes.startIndex
        while offset + header <= bytes.endIndex {
            let length = bytes[offset..<offset + header].withUnsafeBytes { Int($0.loadUnaligned(as: inotify_event.self).len) }
            let start = offset + header
            let end = min(start + length, bytes.endIndex)
            names.append(String(decoding: bytes[start..<end].prefix { $0 != 0 }, as: UTF8.self))
            offset = start + length
        }
        return names
    }
}
