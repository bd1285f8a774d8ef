public import Glibc

/// What a child process started with `posix_spawn` inherits: only the descriptors its file actions set up.
///
/// swift-nio opens its sockets without close-on-exec, so without this a command the daemon or a plugin
/// runs (a token command, an answer command) would hold every socket the process had open when it
/// started: a listening port stays taken after the daemon lets it go, and a connection the daemon
/// closes stays open for the peer, for as long as the child (or anything it leaves behind) lives.
public enum ChildDescriptors {
    /// Adds to `actions` the closing of every descriptor from 3 up. Add it after the actions that set up
    /// the child's standard descriptors, whose sources it closes too.
    ///
    /// Uses glibc's `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later; not in Swift's
    /// Glibc module, which leaves out GNU extensions). Where it is missing, every descriptor open now is
    /// marked close-on-exec instead.
    public static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom = Self.addCloseFrom, addCloseFrom(&actions, 3) == 0 { return }
        Self.markOpenDescriptorsCloseOnExec()
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = {
        // RTLD_DEFAULT is the null handle in glibc.
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    private static func markOpenDescriptorsCloseOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor >= 3, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
