/// Why a plugin could not be loaded. The ``description`` names the plugin file and says what to do.
package struct PluginLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Code
    /// The plugin as configured (`loopback`, or a path).
    package var plugin: String
    /// The file concerned, when one was found.
    package var path: String?
    package var description: String

    package init(_ code: Code, plugin: String, path: String?, _ description: String) {
        self.code = code
        self.plugin = plugin
        self.path = path
        self.description = description
    }

    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// No file for the plugin in any folder of the search path.
        package static let notFound = Code("not-found")
        /// The file or its folder can be changed by other users.
        package static let unsafePermissions = Code("unsafe-permissions")
        /// `dlopen` refused the file (not a shared library, a missing dependency).
        package static let cannotLoad = Code("cannot-load")
        /// A shared library without the Attendant entry symbols, or whose factory is of another type.
        package static let notAPlugin = Code("not-a-plugin")
        /// Built against a plugin API this daemon does not provide.
        package static let incompatibleAPI = Code("incompatible-api")

        package var description: String { self.rawValue }
    }
}
