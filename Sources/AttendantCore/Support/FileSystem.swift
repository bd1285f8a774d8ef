import Glibc

/// A failed system call, with the path it was about and `strerror`'s text.
struct SystemError: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: Int32

    init(_ operation: String, _ path: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    var description: String { "\(self.operation) \(self.path): \(String(cString: strerror(self.errno)))" }
}

/// Reading whole files without Foundation.
enum FileContents {
    /// The file's bytes as UTF-8 text; errors read like `No such file or directory`.
    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(errno: errno)
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    struct ReadError: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { String(cString: strerror(self.errno)) }
    }
}

/// Paths the daemon uses, following the XDG base directory specification.
package enum Paths {
    /// The folder of the running executable (from /proc/self/exe), or nil.
    package static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// The prefix the running executable is installed under (`/usr` for `/usr/bin/attendantd`), or nil
    /// when it is not in a `bin` folder (a build folder).
    package static func installationPrefix() -> String? {
        guard let executable = self.executableDirectory(), executable.hasSuffix("/bin") else { return nil }
        return String(executable.dropLast(4))
    }

    /// The example configuration installed beside the executable: the package puts it in
    /// `/usr/share/doc/attendant/examples/` (Debian's place for examples); nil when there is none (a
    /// build from source, whose example is `examples/attendant.toml` in the checkout).
    package static func installedExampleConfiguration() -> String? {
        guard let prefix = self.installationPrefix() else { return nil }
        let example = prefix + "/share/doc/attendant/examples/attendant.toml"
        return access(example, R_OK) == 0 ? example : nil
    }

    /// `$XDG_CONFIG_HOME/attendant/attendant.toml`, default `~/.config/attendant/attendant.toml`.
    package static func defaultConfigurationFile(environment: [String: String]) -> String {
        self.xdg("XDG_CONFIG_HOME", fallback: ".config", environment: environment) + "/attendant/attendant.toml"
    }

    /// `$XDG_STATE_HOME/attendant`, default `~/.local/state/attendant`.
    package static func defaultStateDirectory(environment: [String: String]) -> String {
        self.xdg("XDG_STATE_HOME", fallback: ".local/state", environment: environment) + "/attendant"
    }

    /// `$XDG_RUNTIME_DIR/attendant` if set, else nil.
    package static func runtimeDirectory(environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return runtime + "/attendant"
    }

    /// `~` expanded at the start of a path.
    package static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return self.home(environment: environment) + path.dropFirst()
    }

    static func home(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    private static func xdg(_ variable: String, fallback: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return self.home(environment: environment) + "/" + fallback
    }

    /// Creates `path` and its parents; the last component gets `mode`, and if it exists with more
    /// permissive bits they are narrowed to `mode`.
    static func makeDirectory(_ path: String, mode: mode_t) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let last = index == components.count - 1
            if mkdir(prefix, last ? mode : 0o755) != 0 && errno != EEXIST {
                throw SystemError("cannot create directory", prefix)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError("cannot inspect", path) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SystemError("not a directory:", path, errno: ENOTDIR) }
        if info.st_mode & 0o777 & ~mode != 0, chmod(path, mode) != 0 {
            throw SystemError("cannot restrict permissions of", path)
        }
    }
}
