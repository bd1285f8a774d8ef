import Glibc

/// One daemon per user: an exclusive `flock(2)` on a lock file in the user's runtime directory, held for
/// the life of the process (the kernel releases it when the process dies, however it dies).
package final class InstanceLock {
    package let path: String
    private let fd: Int32

    /// Takes the lock or explains who holds it.
    package init(path: String) throws(InstanceLockError) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            try Paths.makeDirectory(folder, mode: 0o700)
        } catch {
            throw InstanceLockError(description: "cannot create \(folder) for the instance lock: \(error)")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw InstanceLockError(description: "cannot open the instance lock \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(fd)
            close(fd)
            let who = holder.map { " (pid \($0))" } ?? ""
            throw InstanceLockError(
                description:
                    "attendantd is already running for this user\(who): it holds \(path). Stop it first (systemctl --user stop attendantd) or talk to it with attendantctl."
            )
        }
        self.path = path
        self.fd = fd
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.utf8CString.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count - 1, 0) }
    }

    deinit {
        close(self.fd)
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: " \n"))
    }
}

package struct InstanceLockError: Error, CustomStringConvertible {
    package var description: String
}
