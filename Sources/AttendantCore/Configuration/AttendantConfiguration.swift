package import AttendantPluginAPI

/// The daemon's configuration: the `[daemon]` table, one ``ChannelConfiguration`` per `[[channel]]` and
/// the `[alerts]`, `[session]`, `[links]` and `[metrics]` tables.
package struct AttendantConfiguration: Sendable, Equatable {
    package var daemon: DaemonSettings
    package var channels: [ChannelConfiguration]
    package var alerts: AlertSettings
    package var session: SessionSettings
    package var links: LinkSettings
    package var metrics: MetricsSettings
    /// The files it was read from, in order (``ConfigurationSources``); empty for the built-in demo
    /// configuration.
    package var files: [String]

    package init(
        daemon: DaemonSettings = DaemonSettings(),
        channels: [ChannelConfiguration] = [],
        alerts: AlertSettings = AlertSettings(),
        session: SessionSettings = SessionSettings(),
        links: LinkSettings = LinkSettings(),
        metrics: MetricsSettings = MetricsSettings(),
        files: [String] = []
    ) {
        self.metrics = metrics
        self.session = session
        self.links = links
        self.daemon = daemon
        self.channels = channels
        self.alerts = alerts
        self.files = files
    }
}

/// The `[daemon]` table.
package struct DaemonSettings: Sendable, Equatable {
    /// Folders searched for plugins, before the install and build folders.
    package var pluginPath: [String] = []
    /// The lowest level that is logged.
    package var logLevel: Logger.Level = .info
    /// Where the state database lives; default `$XDG_STATE_HOME/attendant`.
    package var stateDirectory: String?
    /// How long channels get to stop gracefully on shutdown; keep it at least 3 s below the unit's
    /// `TimeoutStopSec=`.
    package var shutdownTimeout: Duration = .seconds(10)

    /// The whole graceful shutdown's limit: the channels' `shutdownTimeout` and a margin for the services
    /// stopped after them, so a channel dropped at its limit does not take the daemon past its own.
    package var gracefulShutdownBudget: Duration { self.shutdownTimeout + .seconds(2) }

    package init() {}
}

/// One `[[channel]]` table: which plugin, how often to keep alive, and the plugin's own settings.
package struct ChannelConfiguration: Sendable, Equatable {
    /// Unique name: letters, digits, `-` and `_`.
    package var name: String
    /// The plugin's name (`loopback`, `sip-voice`, …) or a path to its `.so` file.
    package var plugin: String
    /// A disabled channel is not started.
    package var enabled = true
    /// How often ``AttendantPluginAPI/Channel/keepAlive()`` runs while listening.
    package var keepAliveInterval: Duration = .seconds(600)
    /// How long `listen()` may take before the attempt counts as failed: a backstop for a hung plugin,
    /// longer than the protocols' own timeouts (SIP gives up on an unanswered REGISTER after 32 s,
    /// after up to 10 s of connecting), so that the channel's own, more precise error is what the user sees.
    package var listenTimeout: Duration = Self.defaultListenTimeout
    package static let defaultListenTimeout: Duration = .seconds(60)
    /// `tls-verify`: whether the channel's https and wss connections check the server's certificate. The
    /// only switch for it (DESIGN.md section 7): on by default, and a channel that turns it off is logged
    /// as a warning when it starts.
    package var verifiesTLS = true
    /// `tls-ca-file`: a PEM file of CAs the channel trusts beside the system's trust store (a private
    /// PBX's CA, say), read each time the channel starts (``tlsPolicy(file:environment:)``).
    package var tlsCAFile: String?
    /// The `token-*` keys: where the channel's token comes from; nil when it has none.
    package var token: TokenSettings?
    /// The `chat-alert-*` keys: which chat messages alert and how.
    package var chatAlerts = ChatAlertSettings()
    /// The plugin's own table (`[channel.<plugin>]`).
    package var settings: [String: SettingValue] = [:]
    /// Where each plugin setting was written, for messages: the files of one channel can differ from key
    /// to key when drop-ins extend it.
    package var settingPlaces: [String: ConfigurationPlace] = [:]
    /// Where each of the channel's own keys (`tls-ca-file`, …) was written, for messages.
    package var keyPlaces: [String: ConfigurationPlace] = [:]
    /// Where the `[[channel]]` that first named the channel is, for messages.
    package var place: ConfigurationPlace?

    package init(name: String, plugin: String) {
        self.name = name
        self.plugin = plugin
    }

    /// The name of the plugin-settings table: the plugin name, or a path's file stem.
    package var settingsTableName: String {
        Self.settingsTableName(forPlugin: self.plugin)
    }

    static func settingsTableName(forPlugin plugin: String) -> String {
        guard plugin.contains("/") else { return plugin }
        var stem = Substring(plugin.split(separator: "/").last ?? "")
        if stem.hasSuffix(".so") { stem = stem.dropLast(3) }
        if stem.hasPrefix("libattendant-") { stem = stem.dropFirst("libattendant-".count) }
        if stem.hasPrefix("lib") { stem = stem.dropFirst(3) }
        return String(stem)
    }

    /// True when restarting the channel is needed to apply `other` (anything but where values were
    /// written).
    ///
    /// A change of the `chat-alert-*` keys counts too, although only the alert center reads them: the
    /// simplest rule (one comparison of the whole table), at the cost of a restart for a new alert title.
    package func needsRestart(toBecome other: ChannelConfiguration) -> Bool {
        var a = self
        var b = other
        (a.place, a.settingPlaces, a.keyPlaces) = (nil, [:], [:])
        (b.place, b.settingPlaces, b.keyPlaces) = (nil, [:], [:])
        return a != b
    }

    /// Settings for the plugin, scoped for messages: each key names the file and line it was written at.
    package func pluginSettings() -> ChannelSettings {
        ChannelSettings(
            self.settings,
            file: self.place?.file,
            scope: "[channel.\(self.settingsTableName)] of channel \"\(self.name)\"",
            lines: self.settingPlaces.compactMapValues(\.line),
            files: self.settingPlaces.compactMapValues(\.file)
        )
    }
}
