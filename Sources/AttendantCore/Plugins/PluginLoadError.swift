/// Why a plugin could not be loaded. The ``description`` names the plugin file and says what to do.
public struct PluginLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    /// The plugin as configured (`loopback`, or a path).
    public var plugin: String
    /// The file concerned, when one was found.
    public var path: String?
    public var description: String

    public init(_ code: Code, plugin: String, path: String?, _ description: String) {
        self.code = code
        self.plugin = plugin
        self.path = path
        self.description = description
    }

    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// No file for the plugin in any folder of the search path.
        public static let notFound = Code("not-found")
        /// The file or its folder can be changed by other users.
        public static let unsafePermissions = Code("unsafe-permissions")
        /// `dlopen` refused the file (not a shared library, a missing dependency).
        public static let cannotLoad = Code("cannot-load")
        /// A shared library without the Attendant entry symbols, or whose factory is of another type.
        public static let notAPlugin = Code("not-a-plugin")
        /// Built against a plugin API this daemon does not provide.
        public static let incompatibleAPI = Code("incompatible-api")

        public var description: String { self.rawValue }
    }
}
