import Systemd

/// A do-not-disturb switch that a desktop's notification server exposes on the session bus: who owns it,
/// how to read it, and which signal tells its changes. ``DesktopQuietWatcher`` follows each one.
struct DesktopQuietSource: Sendable {
    /// Names the source in reports and logs ("KDE Plasma").
    var label: String
    /// The bus name whose owner has the switch.
    var busName: String
    /// Signals that carry changes; only those sent by the current owner of ``busName`` count.
    var match: BusMatchRule
    /// Reads the switch (true: quiet) from the current owner; throws when it has none.
    var read: @Sendable (BusConnection) async throws(BusError) -> Bool
    /// The switch's new value (true: quiet) that a signal of ``match`` carries; nil: it carries none.
    var interpret: @Sendable (BusSignal) -> Bool?

    static let notificationServer = "org.freedesktop.Notifications"
    static let notificationPath = "/org/freedesktop/Notifications"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// How long a read may take: a hung server leaves its source unknown, not the watcher stuck.
    static let readTimeout: Duration = .seconds(5)

    /// The sources on the bus, in the order they are followed.
    static let all: [DesktopQuietSource] = [.plasma, .dunst, .swayNotificationCenter]

    // MARK: KDE Plasma

    /// plasmashell's notification server has a read-only `Inhibited` property on
    /// `org.freedesktop.Notifications` (its do-not-disturb, set from the tray or by inhibiting apps) and
    /// sends `PropertiesChanged` for it itself: KDE plasma-workspace (v5.27.9.1, Debian 12's 5.27, and master),
    /// libnotificationmanager/server_p.h (`Q_PROPERTY(bool Inhibited READ inhibited)`) and server_p.cpp
    /// (`ServerPrivate::onInhibitedChanged`: a `PropertiesChanged` signal on /org/freedesktop/Notifications
    /// with `{"Inhibited": inhibited()}`). Other servers (dunst, GNOME Shell, SwayNotificationCenter)
    /// have no such property: the Get fails and the source is not followed while they own the name.
    static let plasma = DesktopQuietSource.property(
        label: "KDE Plasma",
        interface: notificationServer,
        property: "Inhibited"
    )

    // MARK: dunst

    /// dunst's control interface `org.dunstproject.cmd0` on the notification server's object has a
    /// read-write `paused` property (`dunstctl set-paused true|false|toggle` sets it with
    /// Properties.Set). dunst 1.9.0 (Debian 12), src/dbus.c: `dbus_cb_dunst_Properties_Set` sends
    /// `PropertiesChanged` with `{"paused": value}` on every Set, and the introspection data annotates the
    /// property `EmitsChangedSignal=true`; dunst 1.10 and later send it from `signal_paused_propertieschanged`
    /// (with `pauseLevel`, where `paused` is `pause_level != 0`). Pausing with SIGUSR1/SIGUSR2 (the old
    /// way) sends no signal in 1.9 and is not seen until the next Set.
    static let dunst = DesktopQuietSource.property(
        label: "dunst",
        interface: "org.dunstproject.cmd0",
        property: "paused"
    )

    /// A boolean property of the notification server's object, read with Properties.Get and followed
    /// through `PropertiesChanged` (D-Bus specification, "org.freedesktop.DBus.Properties").
    static func property(label: String, interface: String, property: String) -> DesktopQuietSource {
        DesktopQuietSource(
            label: label,
            busName: notificationServer,
            match: BusMatchRule(path: notificationPath, interface: propertiesInterface, member: "PropertiesChanged", arg0: interface),
            read: { connection throws(BusError) in
                let reply = try await connection.call(
                    destination: notificationServer,
                    path: notificationPath,
                    interface: propertiesInterface,
                    member: "Get",
                    arguments: [.string(interface), .string(property)],
                    timeout: readTimeout
                )
                guard let value = reply.first?.bool else { throw BusError.malformed("\(interface).\(property) is not a boolean: \(reply)") }
                return value
            },
            interpret: { signal in
                // (s interface, a{sv} changed, as invalidated). Both servers send the new value itself, never
                // only its name among the invalidated.
                guard signal.member == "PropertiesChanged", signal.arguments.first?.string == interface else { return nil }
                return signal.arguments.dropFirst().first?.stringDictionary?[property]?.bool
            }
        )
    }

    // MARK: SwayNotificationCenter

    /// SwayNotificationCenter's control center `org.erikreider.swaync.cc` at /org/erikreider/swaync/cc
    /// (what `swaync-client --dnd-on/--dnd-off/--get-dnd` talks to): the method `GetDnd() → b`, and on
    /// every do-not-disturb change the signal `Subscribe(u count, b dnd, b cc_open)` (0.7.3, Debian 12;
    /// src/swayncDaemon/swayncDaemon.vala, emitted from `noti_daemon.on_dnd_toggle`) or, from 0.8.0 on,
    /// `SubscribeV2(u count, b dnd, b cc_open, b inhibited)` (`Subscribe` is kept there but deprecated and
    /// no longer sent). Both carry the switch as their second argument.
    static let swayNotificationCenter = DesktopQuietSource(
        label: "SwayNotificationCenter",
        busName: "org.erikreider.swaync.cc",
        match: BusMatchRule(path: "/org/erikreider/swaync/cc", interface: "org.erikreider.swaync.cc"),
        read: { connection throws(BusError) in
            let reply = try await connection.call(
                destination: "org.erikreider.swaync.cc",
                path: "/org/erikreider/swaync/cc",
                interface: "org.erikreider.swaync.cc",
                member: "GetDnd",
                timeout: readTimeout
            )
            guard let value = reply.first?.bool else { throw BusError.malformed("GetDnd answered \(reply)") }
            return value
        },
        interpret: { signal in
            guard signal.member == "Subscribe" || signal.member == "SubscribeV2" else { return nil }
            return signal.arguments.dropFirst().first?.bool
        }
    )
}
