package import AttendantPluginAPI
import Glibc
import Synchronization

/// A plugin library loaded into the daemon, with its factory.
package struct LoadedPlugin: Sendable {
    /// The file it was loaded from.
    package var path: String
    /// The API version it was built against.
    package var apiVersion: PluginAPIVersion
    package var factory: any ChannelPluginFactory
}

/// Finds, checks and loads channel plugins (`libattendant-<name>.so`).
///
/// Libraries are opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and never closed: Swift images
/// cannot be unloaded safely. A plugin is loaded once and its factory serves every channel naming it;
/// changing a plugin's code needs a daemon restart.
package final class PluginLoader: Sendable {
    /// The folders searched, in order.
    package let searchPath: [String]
    private let loaded = Mutex<[String: LoadedPlugin]>([:])

    package init(searchPath: [String]) {
        self.searchPath = searchPath
    }

    /// The search path for a daemon: the configured folders, then `<prefix>/lib/attendant/plugins` of the
    /// installed executable, then the executable's own folder (where `swift build` puts plugins).
    package static func defaultSearchPath(configured: [String], environment: [String: String]) -> [String] {
        var path = configured.map { Paths.expandingTilde($0, environment: environment) }
        if let executable = Paths.executableDirectory() {
            let prefix = Paths.installationPrefix() ?? executable + "/.."
            path.append(prefix + "/lib/attendant/plugins")
            path.append(executable)
        }
        var seen = Set<String>()
        return path.filter { seen.insert($0).inserted }
    }

    /// The file names tried for a plugin name, in each folder.
    package static func fileNames(for name: String) -> [String] {
        ["libattendant-\(name).so", "attendant-\(name).so"]
    }

    /// Loads the plugin `plugin` (a name or a path), or returns it if already loaded.
    package func load(_ plugin: String) throws(PluginLoadError) -> LoadedPlugin {
        let path = try self.locate(plugin)
        if let existing = self.loaded.withLock({ $0[path] }) { return existing }
        try Self.checkPermissions(plugin: plugin, path: path)
        let loaded = try Self.open(plugin: plugin, path: path)
        return self.loaded.withLock { cache in
            if let existing = cache[path] { return existing }
            cache[path] = loaded
            return loaded
        }
    }

    // MARK: Steps

    private func locate(_ plugin: String) throws(PluginLoadError) -> String {
        if plugin.contains("/") {
            guard access(plugin, F_OK) == 0 else {
                throw PluginLoadError(
                    .notFound,
                    plugin: plugin,
                    path: plugin,
                    "plugin \(plugin): no such file; check the path in plugin = \"…\""
                )
            }
            return Self.canonical(plugin)
        }
        var tried: [String] = []
        for folder in self.searchPath {
            for name in Self.fileNames(for: plugin) {
                let candidate = folder + "/" + name
                if access(candidate, F_OK) == 0 { return Self.canonical(candidate) }
                tried.append(candidate)
            }
        }
        let folders = self.searchPath.isEmpty ? "(the search path is empty)" : self.searchPath.joined(separator: ", ")
        throw PluginLoadError(
            .notFound,
            plugin: plugin,
            path: nil,
            "plugin \"\(plugin)\" not found: no \(Self.fileNames(for: plugin)[0]) in \(folders); install it there or add its folder to plugin-path in [daemon]"
        )
    }

    /// Refuses files and folders that another user could replace: a plugin runs with the user's rights.
    static func checkPermissions(plugin: String, path: String) throws(PluginLoadError) {
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        for (what, target) in [("file", path), ("folder", "/" + folder)] {
            var info = stat()
            guard stat(target, &info) == 0 else {
                throw PluginLoadError(
                    .cannotLoad,
                    plugin: plugin,
                    path: path,
                    "plugin \(path): cannot inspect \(target): \(String(cString: strerror(errno)))"
                )
            }
            let owner = info.st_uid
            if owner != 0 && owner != geteuid() {
                throw PluginLoadError(
                    .unsafePermissions,
                    plugin: plugin,
                    path: path,
                    "plugin \(path) refused: its \(what) \(target) belongs to another user (uid \(owner)); plugins must belong to you or root"
                )
            }
            let worldWritable = info.st_mode & S_IWOTH != 0
            let groupWritable = info.st_mode & S_IWGRP != 0 && info.st_gid != getegid()
            if worldWritable || groupWritable {
                let mode = String(info.st_mode & 0o7777, radix: 8)
                throw PluginLoadError(
                    .unsafePermissions,
                    plugin: plugin,
                    path: path,
                    "plugin \(path) refused: its \(what) \(target) can be written by other users (mode \(mode)); run chmod go-w \(target)"
                )
            }
        }
    }

    private static func open(plugin: String, path: String) throws(PluginLoadError) -> LoadedPlugin {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw PluginLoadError(
                .cannotLoad,
                plugin: plugin,
                path: path,
                "plugin \(path) cannot be loaded: \(reason)"
            )
        }
        // Never dlclose: RTLD_NODELETE keeps the image anyway, and Swift metadata must stay valid.
        typealias VersionFunction = @convention(c) () -> UInt32
        typealias FactoryFunction = @convention(c) () -> UnsafeMutableRawPointer?
        guard let versionSymbol = dlsym(handle, pluginAPIVersionSymbol) else {
            throw PluginLoadError(
                .notAPlugin,
                plugin: plugin,
                path: path,
                "\(path) is not an Attendant plugin: it does not export \(pluginAPIVersionSymbol)()"
            )
        }
        let version = PluginAPIVersion(packed: unsafeBitCast(versionSymbol, to: VersionFunction.self)())
        let host = PluginAPIVersion.current
        if version.major != host.major || version.minor > host.minor {
            let advice =
                version.major != host.major
                ? "rebuild the plugin against AttendantPluginAPI \(host.major).x"
                : "update attendantd, or rebuild the plugin against AttendantPluginAPI \(host)"
            throw PluginLoadError(
                .incompatibleAPI,
                plugin: plugin,
                path: path,
                "plugin \(path) was built for plugin API \(version), but this attendantd provides \(host); \(advice)"
            )
        }
        guard let factorySymbol = dlsym(handle, pluginFactorySymbol) else {
            throw PluginLoadError(
                .notAPlugin,
                plugin: plugin,
                path: path,
                "\(path) is not an Attendant plugin: it does not export \(pluginFactorySymbol)()"
            )
        }
        guard let pointer = unsafeBitCast(factorySymbol, to: FactoryFunction.self)() else {
            throw PluginLoadError(.notAPlugin, plugin: plugin, path: path, "plugin \(path): \(pluginFactorySymbol)() returned no factory")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
        guard let factory = object as? any ChannelPluginFactory else {
            throw PluginLoadError(
                .notAPlugin,
                plugin: plugin,
                path: path,
                "plugin \(path): its factory is a \(type(of: object)), not a ChannelPluginFactory; link the plugin against the AttendantPluginAPI library product, not a copy of its sources"
            )
        }
        return LoadedPlugin(path: path, apiVersion: version, factory: factory)
    }

    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

}
