/// The version of the plugin API.
///
/// The major version changes when a plugin built against the previous major could misbehave with this
/// host; the host refuses such plugins. The minor version grows when requirements with default
/// implementations, event cases or request cases are added; plugins built against an older minor keep
/// working because the library is built with library evolution.
public struct PluginAPIVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: UInt16
    public var minor: UInt16

    public init(major: UInt16, minor: UInt16) {
        self.major = major
        self.minor = minor
    }

    /// The version packed into one integer as `major << 16 | minor`, the form the C entry symbols use.
    public init(packed: UInt32) {
        self.init(major: UInt16(truncatingIfNeeded: packed >> 16), minor: UInt16(truncatingIfNeeded: packed))
    }

    public var packed: UInt32 { UInt32(self.major) << 16 | UInt32(self.minor) }

    public var description: String { "\(self.major).\(self.minor)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.packed < rhs.packed }

    /// The version of the API library loaded at run time: the host's. What each version added is in
    /// the package's `CHANGELOG.md`.
    public static let current = PluginAPIVersion(major: 1, minor: 13)

    /// The version of the API the *calling code was compiled against*: emitted into the caller, so its
    /// value is fixed into a plugin when the plugin is compiled, in debug builds too. A plugin exports it
    /// through ``PluginExport`` and the host compares it with ``current``.
    @_alwaysEmitIntoClient
    public static var builtAgainst: PluginAPIVersion { PluginAPIVersion(major: 1, minor: 13) }

    /// Kept for plugins built for 1.3 or older; in a debug build it is not inlined and answers with the
    /// library's version. Use ``builtAgainst``.
    @inlinable
    public static var compiledAgainst: PluginAPIVersion { PluginAPIVersion(major: 1, minor: 13) }
}

/// The C name of the symbol every plugin exports with the API version it was built against.
///
/// Its type is `@convention(c) () -> UInt32` returning ``PluginAPIVersion/packed``.
public let pluginAPIVersionSymbol = "attendant_plugin_api_version"

/// The C name of the symbol every plugin exports to hand its factory to the host.
///
/// Its type is `@convention(c) () -> UnsafeMutableRawPointer`, returning a +1 retained
/// ``ChannelPluginFactory`` (see ``PluginExport/factory(_:)``).
public let pluginFactorySymbol = "attendant_plugin_factory"

/// The API version of this library, for tools that inspect it without Swift (`nm -D`, `dlsym`).
@_cdecl("attendant_plugin_api_library_version")
public func attendantPluginAPILibraryVersion() -> UInt32 {
    PluginAPIVersion.current.packed
}
