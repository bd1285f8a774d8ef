import AttendantPluginAPI

/// The settings of one KarteActions channel (`[channel.karte-actions]`); see ``KarteActionsPluginFactory``.
struct KarteActionsConfiguration: Sendable {
    /// The track API's base; requests go to `<base>/v0/native/track`.
    var baseURL: String
    /// The application's version as KARTE sees it (`app_info.version_name`).
    var appVersion: String
    var suppressPersists: Bool
    var requestTimeout: Duration
    /// A `view` tracked when the channel first listens, as an app opens on its first screen (so that
    /// campaigns triggered by that screen show at start); nil: none.
    var startView: String?

    static let defaultBaseURL = "https://b.karte.io"

    init(_ settings: ChannelSettings) throws {
        var base = try settings.string("url") ?? Self.defaultBaseURL
        try settings.checkURL(base, key: "url", schemes: ["http", "https"])
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.appVersion = try settings.string("app-version") ?? KarteActionsChannel.pluginVersion
        guard !self.appVersion.isEmpty else { throw settings.error("app-version", "must not be empty") }
        self.suppressPersists = try settings.bool("suppress-persists") ?? false
        let timeout = try settings.duration("request-timeout") ?? .seconds(10)
        guard timeout >= .seconds(1), timeout <= .seconds(120) else {
            throw settings.error("request-timeout", "must be between 1 s and 120 s")
        }
        self.requestTimeout = timeout
        if let view = try settings.string("start-view") {
            guard !view.isEmpty else { throw settings.error("start-view", "must name a view, such as \"home\"") }
            self.startView = view
        }
    }

    var trackURL: String { self.baseURL + "/v0/native/track" }
}
