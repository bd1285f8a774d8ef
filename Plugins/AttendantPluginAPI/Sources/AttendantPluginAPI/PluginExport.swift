/// Helpers for a plugin's two entry symbols.
///
/// Every plugin library exports exactly these two C functions, with these names, and nothing else is
/// needed for the host to find it:
///
/// ```swift
/// import AttendantPluginAPI
///
/// @_cdecl("attendant_plugin_api_version")
/// public func attendantPluginAPIVersion() -> UInt32 { PluginExport.builtAgainstVersion() }
///
/// @_cdecl("attendant_plugin_factory")
/// public func attendantPluginFactory() -> UnsafeMutableRawPointer {
///     PluginExport.factory(EchoPluginFactory())
/// }
/// ```
///
/// The host reads the version first and refuses a plugin built for another major version before it
/// calls any Swift code of that plugin.
public enum PluginExport {
    /// The API version this plugin was compiled against (since API 1.4).
    ///
    /// Emitted into the plugin, never called in the library. ``apiVersion()``, which it replaces, is only
    /// `@inlinable`: a debug build does not inline it but calls the library's copy, which answered with the
    /// *library's* version, so a debug-built plugin claimed the host's version and passed the loader's
    /// check whatever it was built against.
    @_alwaysEmitIntoClient
    public static func builtAgainstVersion() -> UInt32 {
        PluginAPIVersion.builtAgainst.packed
    }

    /// Kept, under its symbol, for plugins built for API 1.3 or older. Without optimisation they call the
    /// library's copy, which cannot know what they were built for; it answers 1.0, an older minor of this
    /// major, which the host accepts, as it should.
    @available(*, deprecated, renamed: "builtAgainstVersion()", message: "a debug build does not inline it")
    @inlinable
    public static func apiVersion() -> UInt32 {
        PluginAPIVersion(major: 1, minor: 0).packed
    }

    /// Passes `factory` to the host as a +1 retained opaque pointer; the host takes ownership.
    @inlinable
    public static func factory(_ factory: some ChannelPluginFactory) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(factory as AnyObject).toOpaque()
    }
}
