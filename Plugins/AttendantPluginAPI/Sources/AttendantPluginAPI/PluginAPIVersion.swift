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

    /// The version of the API library loaded at run time: the host's.
    ///
    /// History: 1.0 the first release; 1.1 adds ``ChatMessage/kind``; 1.2 adds ``ChannelHost/secrets``;
    /// 1.3 adds ``ChannelHost/tokenState()``, ``ChannelError/retryAfter``, ``Contact/threadID``,
    /// ``ChatThread/assignedAgent``, ``ChatThread/positionInQueue`` and ``ChatMessage/readByAgentAt``;
    /// 1.4 adds ``ChannelHost/network`` (``ChannelNetwork``), ``ChannelHost/hashing``, ``Channel/run()``,
    /// ``PluginExport/builtAgainstVersion()`` and the AttendantPluginKit module; 1.5 adds
    /// ``ChatMessage/transcriptPosition``, ``ChatMessage/Kind/idleAlert``, ``ChannelRequest/typing(threadID:started:)``,
    /// ``ChannelPluginFactory/defaultChatAlertTitle`` and ``ChannelSettings/checkURL(_:key:schemes:)``; 1.6 adds
    /// ``ChannelHost/openURL(_:)``, ``ChannelEvent/actionLifecycle(_:)``, ``InAppAction/shortenID``,
    /// ``InAppAction/json``, ``InAppAction/Link/target`` and ``ChannelError/Code/invalidArgument``; 1.7 adds
    /// the kit's `AgentDriver` (with `ChannelAgent`, `AgentAction` and `AgentLink`); 1.8 adds the kit's
    /// `SessionDriver` (with `ChannelSession` and `SessionAction`); 1.9 adds `SessionDriver.concurrently(_:)`;
    /// 1.10 adds ``NetworkError/status``; 1.11 adds ``Contact/fromAsserted``, ``Contact/diversion``
    /// (``Contact/Diversion``) and ``ContactOutcome/answeredElsewhere``; 1.12 adds ``StreamOptions/tls``
    /// (``StreamTLS``) and ``NetworkError/Kind/certificate``.
    public static let current = PluginAPIVersion(major: 1, minor: 12)

    /// The version of the API the *calling code was compiled against*: emitted into the caller, so its
    /// value is fixed into a plugin when the plugin is compiled, in debug builds too. A plugin exports it
    /// through ``PluginExport`` and the host compares it with ``current``.
    @_alwaysEmitIntoClient
    public static var builtAgainst: PluginAPIVersion { PluginAPIVersion(major: 1, minor: 12) }

    /// Kept for plugins built for 1.3 or older; in a debug build it is not inlined and answers with the
    /// library's version. Use ``builtAgainst``.
    @inlinable
    public static var compiledAgainst: PluginAPIVersion { PluginAPIVersion(major: 1, minor: 12) }
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
