package import AttendantPluginAPI
package import Systemd

/// Follows the desktop's own do-not-disturb switch, beside Attendant's own (issue 30 part 5):
///
/// - **KDE Plasma**: the `Inhibited` property of the notification server (``DesktopQuietSource/plasma``);
/// - **dunst**: its `paused` property (``DesktopQuietSource/dunst``);
/// - **SwayNotificationCenter**: its control center's do-not-disturb (``DesktopQuietSource/swayNotificationCenter``);
/// - **GNOME**: `org.gnome.desktop.notifications show-banners` set to false, followed only in a GNOME
///   session (`XDG_CURRENT_DESKTOP` names GNOME), through dconf (see `DesktopQuietWatcher+GNOME.swift`).
///
/// Each source is reported on its own, and the desktop is quiet while any source's last report says so
/// (the caller ORs them). A source that is absent (no owner of its bus name, a notification server
/// without the property, no GNOME session or no schema) is not followed and reports nothing; it is
/// followed as soon as its server appears on the bus. A server that leaves the bus ends its quiet.
package final class DesktopQuietWatcher: Sendable {
    let connection: BusConnection
    let logger: Logger
    let environment: [String: String]

    /// - Parameter environment: the daemon's environment (`XDG_CURRENT_DESKTOP`, and what `gsettings` runs with).
    package init(connection: BusConnection, logger: Logger, environment: [String: String]) {
        self.connection = connection
        self.logger = logger
        self.environment = environment
    }

    /// Calls `changed` with whether the desktop is in do-not-disturb (true: quiet) according to `source`
    /// ("KDE Plasma", "GNOME", "SwayNotificationCenter", "dunst"): once when the source is first known,
    /// then whenever its value changes (never the same value twice in a row for one source); `false` when
    /// a quiet source's server leaves the bus. Runs until the task is cancelled. Calls for one source come
    /// in order; calls for different sources may come from different tasks at the same time.
    package func run(_ changed: @escaping @Sendable (_ quiet: Bool, _ source: String) -> Void) async {
        await withDiscardingTaskGroup { group in
            for source in DesktopQuietSource.all {
                group.addTask { await self.follow(source, report: Report(source: source.label, changed: changed)) }
            }
            group.addTask { await self.followGNOME(report: Report(source: Self.gnome, changed: changed)) }
        }
    }

    /// One source's reports: only changes reach `changed`.
    struct Report {
        let source: String
        let changed: @Sendable (Bool, String) -> Void
        private(set) var last: Bool?

        init(source: String, changed: @escaping @Sendable (Bool, String) -> Void) {
            self.source = source
            self.changed = changed
        }

        mutating func callAsFunction(_ quiet: Bool) {
            guard quiet != self.last else { return }
            self.last = quiet
            self.changed(quiet, self.source)
        }
    }

    // MARK: Sources on the bus

    /// Errors that say the server did not answer, rather than that it has no such switch.
    static let silentServerErrors: Set<String> = ["org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.NoReply"]

    private enum Input: Sendable {
        case owner(String?)
        case signal(BusSignal)
    }

    /// Follows the owner of the source's bus name and, while it has one, its switch: read when the owner
    /// appears, then taken from its signals. Signals and owner changes go through one queue, handled one
    /// at a time; both subscriptions are in place before the first read, so no change slips between.
    private func follow(_ source: DesktopQuietSource, report: Report) async {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        await withDiscardingTaskGroup { group in
            do {
                let owners = try await self.connection.signals(
                    BusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: source.busName)
                )
                let signals = try await self.connection.signals(source.match)
                group.addTask {
                    for await signal in owners {
                        guard signal.arguments.count == 3, signal.arguments[0].string == source.busName else { continue }
                        let owner = signal.arguments[2].string ?? ""
                        continuation.yield(.owner(owner.isEmpty ? nil : owner))
                    }
                    continuation.finish()
                }
                group.addTask {
                    for await signal in signals { continuation.yield(.signal(signal)) }
                    continuation.finish()
                }
                continuation.yield(.owner(try await self.connection.nameOwner(source.busName)))
            } catch {
                self.logger.warning("cannot follow \(source.label)'s do-not-disturb on the \(self.connection.address): \(error)")
                group.cancelAll()
                return
            }

            var report = report
            var owner: String? = nil
            for await input in inputs {
                switch input {
                case .owner(let newOwner):
                    guard newOwner != owner else { continue }
                    if owner != nil, report.last == true {
                        self.logger.info("\(source.label) left the bus: its do-not-disturb no longer holds alerts back")
                        report(false)
                    }
                    owner = newOwner
                    guard newOwner != nil else { continue }
                    do throws(BusError) {
                        let quiet = try await source.read(self.connection)
                        self.logger.info("following \(source.label)'s do-not-disturb (\(quiet ? "on" : "off") now)")
                        report(quiet)
                    } catch let error where error.name == nil || Self.silentServerErrors.contains(error.name ?? "") {
                        self.logger.warning(
                            "\(source.busName) did not tell \(source.label)'s do-not-disturb (\(error)); it is followed from its next change"
                        )
                    } catch {
                        // Another server owns the name (dunst has no `Inhibited`, Plasma no `paused`).
                        self.logger.debug("\(source.label)'s do-not-disturb is not followed: \(source.busName) has no such switch (\(error))")
                    }
                case .signal(let signal):
                    guard let owner, signal.sender == owner, let quiet = source.interpret(signal) else { continue }
                    report(quiet)
                }
            }
            group.cancelAll()
        }
    }
}
