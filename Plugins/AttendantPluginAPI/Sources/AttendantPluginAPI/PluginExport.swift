/// Helpers for a plugin's two entry symbols.
///
/// Every plugin library exports exactly these two C functions, with these names, and nothing else is
/// needed for the host to find it:
///
/// ```swift
/// import AttendantPluginAPI
///
/// @_cdecl("attendant_plugin_api_version")
/// public func attendantPluginAPIVersion() -> UInt32 { PluginExport.apiVersion() }
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
    /// The API version this plugin was compiled against (inlined into the plugin at its build time).
    @inlinable
    public static func apiVersion() -> UInt32 {
        PluginAPIVersion.compiledAgainst.packed
    }

    /// Passes `factory` to the host as a +1 retained opaque pointer; the host takes ownership.
    @inlinable
    public static func factory(_ factory: some ChannelPluginFactory) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(factory as AnyObject).toOpaque()
    }
}
