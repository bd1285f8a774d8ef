import AttendantPluginAPI
import Systemd

// GNOME's do-not-disturb is the GSettings key `show-banners` of `org.gnome.desktop.notifications`
// (gsettings-desktop-schemas, schemas/org.gnome.desktop.notifications.gschema.xml.in: "Whether notification
// banners are visible for application notifications", default true); GNOME Shell's "Do Not Disturb" switch
// sets it to false. It is no D-Bus property: GSettings keeps it in dconf's user database, which clients read
// from the file itself. What does go over the session bus is dconf's change notice: every write goes through
// dconf-service (`ca.desrt.dconf.Writer`), which then sends `Notify(s prefix, as changes, s tag)` from
// /ca/desrt/dconf/Writer/user (dconf, service/ca.desrt.dconf.xml; engine/dconf-engine.c reads it as: the
// prefix is a key and changes is [""], or the prefix is a folder and changes are paths under it). So the
// watcher subscribes to those notices and, when one touches the key, reads it again with `gsettings get`
// (one short child, off the concurrency pool: ``ChildProcess``). No long-lived child to leak, and nothing
// is read while nothing changes. Followed only in a GNOME session: elsewhere the schema is often installed
// (GTK apps pull it in) and a `false` left from an old GNOME session would silence another desktop.

extension DesktopQuietWatcher {
    static let gnome = "GNOME"
    static let gnomeSchema = "org.gnome.desktop.notifications"
    static let gnomeKey = "show-banners"
    static let gnomeKeyPath = "/org/gnome/desktop/notifications/show-banners"

    /// `XDG_CURRENT_DESKTOP` is a colon-separated list of desktop names (XDG Desktop Entry Specification,
    /// "Recognized desktop environments"): "GNOME", "ubuntu:GNOME", "GNOME-Flashback:GNOME".
    var isGNOMESession: Bool {
        (self.environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").contains { $0.uppercased() == "GNOME" }
    }

    func followGNOME(report: Report) async {
        guard self.isGNOMESession else {
            self.logger.debug(
                "GNOME's do-not-disturb is not followed: not a GNOME session (XDG_CURRENT_DESKTOP=\(self.environment["XDG_CURRENT_DESKTOP"] ?? ""))"
            )
            return
        }
        let notices: AsyncStream<BusSignal>
        do {
            notices = try await self.connection.signals(
                BusMatchRule(path: "/ca/desrt/dconf/Writer/user", interface: "ca.desrt.dconf.Writer", member: "Notify")
            )
        } catch {
            self.logger.warning("cannot follow GNOME's do-not-disturb on the \(self.connection.address): \(error)")
            return
        }
        var report = report
        switch await self.readShowBanners() {
        case .success(let showBanners):
            self.logger.info("following GNOME's do-not-disturb (\(showBanners ? "off" : "on") now)")
            report(!showBanners)
        case .failure(let error):
            self.logger.debug("GNOME's do-not-disturb is not followed: \(error)")
            return
        }
        for await notice in notices where Self.touchesShowBanners(notice) {
            switch await self.readShowBanners() {
            case .success(let showBanners): report(!showBanners)
            case .failure(let error): self.logger.warning("cannot read GNOME's do-not-disturb after it changed: \(error)")
            }
        }
    }

    /// Whether a dconf `Notify(prefix, changes, tag)` may have changed the key: a changed path is the key,
    /// or a folder above it (a reset of the whole folder).
    static func touchesShowBanners(_ notice: BusSignal) -> Bool {
        guard notice.member == "Notify", let prefix = notice.arguments.first?.string else { return false }
        let changes = notice.arguments.dropFirst().first?.elements?.compactMap(\.string) ?? []
        return changes.contains { change in
            let path = prefix + change
            return path == Self.gnomeKeyPath || (path.hasSuffix("/") && Self.gnomeKeyPath.hasPrefix(path))
        }
    }

    struct GSettingsError: Error, CustomStringConvertible {
        var description: String
    }

    /// `gsettings get org.gnome.desktop.notifications show-banners`, in the watcher's environment.
    func readShowBanners() async -> Result<Bool, GSettingsError> {
        let command = ChildProcess(arguments: ["gsettings", "get", Self.gnomeSchema, Self.gnomeKey], environment: self.environment)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await command.run()
        } catch {
            return .failure(GSettingsError(description: "\(error)"))
        }
        let said = outcome.lastErrorLine.map { ": \($0)" } ?? ""
        guard outcome.termination == .exited(0) else {
            return .failure(GSettingsError(description: "gsettings get \(Self.gnomeSchema) \(Self.gnomeKey) failed (\(outcome.termination))\(said)"))
        }
        switch String(decoding: outcome.output, as: UTF8.self).filter({ !$0.isWhitespace }) {
        case "true": return .success(true)
        case "false": return .success(false)
        case let other:
            return .failure(GSettingsError(description: "gsettings get \(Self.gnomeSchema) \(Self.gnomeKey) printed \(other.debugDescription)"))
        }
    }
}
