// Echo: a minimal channel plugin, and a template for third-party plugin authors.
//
// A plugin is a shared library named `libattendant-<name>.so` that exports two C functions:
// - `attendant_plugin_api_version`: the plugin API version the plugin was compiled against; the daemon
//   reads it first and refuses a plugin built for another major version;
// - `attendant_plugin_factory`: a +1 retained ``ChannelPluginFactory``, which makes the channels.
// Depend only on the `AttendantPluginAPI` library product (it re-exports Logging) and declare a
// `.library(name: "attendant-<name>", type: .dynamic, …)` product. Build with
//
//     swift build --package-path Tests/Fixtures/ExternalPlugins
//
// and point `plugin-path` in `[daemon]` at the `.build/debug` folder.
//
// Settings (`[channel.echo]`): `greeting` (string, required), `reply-delay` (duration, default 0).
// Requests: `send-message` answers with a `message-received` event "<greeting>: <text>".
public import AttendantPluginAPI
import Synchronization

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(EchoPluginFactory())
}

/// Makes echo channels. Reads and checks every setting, and does no I/O (`--check-config` calls it).
public final class EchoPluginFactory: ChannelPluginFactory {
    public let name = "echo"
    public let kind = ChannelKind.chat
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        guard let greeting = try settings.string("greeting") else {
            throw settings.error("greeting", "missing; set greeting = \"…\", the prefix of every reply")
        }
        let delay = try settings.duration("reply-delay") ?? .zero
        return EchoChannel(greeting: greeting, replyDelay: delay, host: host)
    }
}

/// A chat channel that answers every message it is sent with the same text behind a greeting.
final class EchoChannel: Channel {
    let greeting: String
    let replyDelay: Duration
    let host: any ChannelHost
    private let replies = Atomic<Int>(0)

    init(greeting: String, replyDelay: Duration, host: any ChannelHost) {
        self.greeting = greeting
        self.replyDelay = replyDelay
        self.host = host
    }

    func listen() async throws {
        self.host.logger.info("echo listening; replies after \(self.replyDelay.seconds) s")
    }

    func stopListening() async {}

    func keepAlive() async throws {
        let count = Int(try await self.host.store.value(forKey: "keepalives") ?? "") ?? 0
        try await self.host.store.setValue(String(count + 1), forKey: "keepalives")
    }

    func perform(_ request: ChannelRequest) async throws -> ChannelReply {
        guard case .sendMessage(let threadID, let text) = request else {
            throw ChannelError(.unsupported, "echo: no \(request.name) requests here; it knows send-message")
        }
        try await self.host.clock.sleep(for: self.replyDelay)
        let number = self.replies.wrappingAdd(1, ordering: .relaxed).newValue
        let reply = ChatMessage(
            id: "echo-\(number)",
            threadID: threadID ?? "echo",
            direction: .fromAgent,
            sender: Party(displayName: "Echo", address: "echo:\(self.host.channelName)"),
            text: "\(self.greeting): \(text)",
            sentAt: self.host.now()
        )
        self.host.emit(.messageReceived(reply))
        return .done
    }
}
