// Faulty: a plugin that loads fine but whose factory cannot make a channel, so tests can check how the
// daemon reports a factory that throws (journal, `--check-config`, `attendantctl status`). Build with
// `swift build --package-path Tests/Fixtures/ExternalPlugins`.
public import AttendantPluginAPI

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(FaultyPluginFactory())
}

/// A factory whose ``makeChannel(settings:host:)`` always throws a configuration error.
public final class FaultyPluginFactory: ChannelPluginFactory {
    public let name = "faulty"
    public let kind = ChannelKind.chat
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        throw ChannelError(.configuration, "faulty: cannot open /dev/attendant-faulty: no such device")
    }
}
