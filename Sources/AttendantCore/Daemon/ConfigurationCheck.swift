import AttendantPluginAPI

/// `attendantd --check-config`: parses the file, loads every plugin it names and lets each plugin check
/// its own settings, without starting anything.
package struct ConfigurationCheck {
    package let configuration: AttendantConfiguration
    package let loader: PluginLoader
    /// `HOME`, for `~/` in `tls-ca-file`.
    package let environment: [String: String]

    package init(configuration: AttendantConfiguration, loader: PluginLoader, environment: [String: String] = [:]) {
        self.configuration = configuration
        self.loader = loader
        self.environment = environment
    }

    /// The problems found; empty when the configuration is valid.
    package func run() -> [ConfigurationError.Problem] {
        var problems: [ConfigurationError.Problem] = []
        for channel in self.configuration.channels {
            do {
                _ = try channel.tlsPolicy(environment: self.environment)
            } catch {
                problems += error.problems
            }
            let factory: any ChannelPluginFactory
            do {
                factory = try self.loader.load(channel.plugin).factory
            } catch {
                problems.append(.init(.plugin, "channel \"\(channel.name)\": \(error)"))
                continue
            }
            let settings = channel.pluginSettings()
            let host = ValidationHost(channelName: channel.name)
            do {
                _ = try factory.makeChannel(settings: settings, host: host)
            } catch let error as SettingsError {
                problems.append(.init(.plugin, error.description))
            } catch {
                problems.append(.init(.plugin, "channel \"\(channel.name)\": plugin \(factory.name) could not make the channel: \(error)"))
            }
            problems += settings.unknownKeyErrors(plugin: factory.name).map { .init(.unknownKey, $0.description) }
        }
        return problems
    }

    /// `3 channels: desk (loopback), …`.
    package var summary: String {
        let channels = self.configuration.channels.map { channel in
            "\(channel.name) (\(channel.plugin)\(channel.enabled ? "" : ", disabled"))"
        }
        let count = channels.count == 1 ? "1 channel" : "\(channels.count) channels"
        return channels.isEmpty ? "no channels" : "\(count): " + channels.joined(separator: ", ")
    }
}

/// A host for channels that are made only to check their settings and never listen.
struct ValidationHost: ChannelHost {
    let channelName: String
    var logger: Logger { Logger(label: "attendant.check", factory: { _ in SwiftLogNoOpLogHandler() }) }
    var clock: any Clock<Duration> { ContinuousClock() }
    var store: any ChannelStore { NoStore() }
    func now() -> UnixTime { SystemWallClock.now() }
    func currentToken() async -> ChannelToken? { nil }
    func renewToken() async throws -> ChannelToken {
        throw ChannelError(.configuration, "channels made by --check-config have no tokens")
    }
    func emit(_ event: ChannelEvent) {}

    struct NoStore: ChannelStore {
        private var error: ChannelError { ChannelError(.configuration, "channels made by --check-config have no store") }
        func value(forKey key: String) async throws -> String? { throw self.error }
        func setValue(_ value: String?, forKey key: String) async throws { throw self.error }
        func allValues() async throws -> [String: String] { throw self.error }
        func enqueue(_ payload: String) async throws -> OutboxItem { throw self.error }
        func pendingOutbox() async throws -> [OutboxItem] { throw self.error }
        func markDelivered(_ id: Int64) async throws { throw self.error }
    }
}
