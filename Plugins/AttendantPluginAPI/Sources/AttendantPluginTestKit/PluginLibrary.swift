public import AttendantPluginAPI
import Glibc
import Synchronization

/// A plugin's shared library, loaded into the test process through its two entry symbols, as attendantd
/// loads it: the API version first (a plugin built for another major version, or a newer minor one, is
/// refused), then the factory.
///
/// A plugin package whose test target links the plugin's own target does not need this. It is for a test
/// process that holds several plugins (each exports the same two C symbols, so two plugin targets cannot
/// be linked into one test bundle), and for checking the library that ships:
///
/// ```swift
/// let factory = try PluginLibrary.built("echo").factory     // libattendant-echo.so beside the test bundle
/// let channel = try factory.makeChannel(settings: ChannelSettings(["greeting": .string("hi")]), host: InMemoryChannelHost())
/// ```
///
/// Libraries stay loaded for the life of the process (Swift images cannot be unloaded safely); loading
/// one twice gives the same factory.
public struct PluginLibrary: Sendable {
    /// The file it was loaded from.
    public let path: String
    /// The API version the plugin was built against.
    public let apiVersion: PluginAPIVersion
    public let factory: any ChannelPluginFactory

    /// Why a library could not be loaded, in words.
    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    private static let loaded = Mutex<[String: PluginLibrary]>([:])

    /// `libattendant-<name>.so` from the folder of the running executable: where `swift build` puts a
    /// package's products and its test bundle.
    public static func built(_ name: String) throws(LoadError) -> PluginLibrary {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw LoadError(description: "cannot read /proc/self/exe: \(String(cString: strerror(errno)))") }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return try self.load("\(folder)/libattendant-\(name).so")
    }

    /// Loads the plugin library at `path`, or returns it if already loaded.
    public static func load(_ path: String) throws(LoadError) -> PluginLibrary {
        if let library = self.loaded.withLock({ $0[path] }) { return library }
        let library = try self.open(path)
        return self.loaded.withLock { loaded in
            if let existing = loaded[path] { return existing }
            loaded[path] = library
            return library
        }
    }

    private static func open(_ path: String) throws(LoadError) -> PluginLibrary {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw LoadError(description: "plugin \(path) cannot be loaded: \(reason); build it first (swift build)")
        }
        typealias VersionFunction = @convention(c) () -> UInt32
        typealias FactoryFunction = @convention(c) () -> UnsafeMutableRawPointer?
        guard let versionSymbol = dlsym(handle, pluginAPIVersionSymbol) else {
            throw LoadError(description: "\(path) is not an Attendant plugin: it does not export \(pluginAPIVersionSymbol)()")
        }
        let version = PluginAPIVersion(packed: unsafeBitCast(versionSymbol, to: VersionFunction.self)())
        let library = PluginAPIVersion.current
        guard version.major == library.major, version.minor <= library.minor else {
            throw LoadError(description: "plugin \(path) was built for plugin API \(version), but the loaded API library is \(library)")
        }
        guard let factorySymbol = dlsym(handle, pluginFactorySymbol),
            let pointer = unsafeBitCast(factorySymbol, to: FactoryFunction.self)()
        else {
            throw LoadError(description: "\(path) is not an Attendant plugin: it exports no \(pluginFactorySymbol)() that returns a factory")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
        guard let factory = object as? any ChannelPluginFactory else {
            throw LoadError(
                description:
                    "plugin \(path): its factory is a \(type(of: object)), not a ChannelPluginFactory; link the plugin against the AttendantPluginAPI library product"
            )
        }
        return PluginLibrary(path: path, apiVersion: version, factory: factory)
    }
}
