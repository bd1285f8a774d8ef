import Foundation
import Glibc
import Synchronization
import TestSupport

// dunst on Xvfb: see Notifications.swift for what it shows and how.

extension DesktopSession {
    // MARK: Notifications (dunst)

    package var notificationServerRunning: Bool { self.dunst.withLock { $0.current?.isRunning ?? false } }

    /// The current dunst's stderr ("WARNING: Unable to parse markup: ..." and so on).
    package var notificationServerStderr: String { self.dunst.withLock { $0.current?.stderr ?? "" } }

    /// Starts dunst (again) and waits until it owns org.freedesktop.Notifications.
    package func startNotificationServer() async throws {
        guard !self.notificationServerRunning else { throw FixtureError("dunst is already running") }
        var environment = self.toolEnvironment
        environment["PATH"] = Self.fixtures + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["ATTENDANT_TEST_PICK_FILE"] = self.pickFile
        let dunst = try FixtureProcess("dunst", "dunst", ["-config", Self.fixtures + "/dunstrc", "-print"], environment: environment)
        self.children.add(dunst)
        self.dunst.withLock {
            $0.current = dunst
            $0.servers.append(dunst)
        }
        let address = self.sessionBusAddress
        let tools = self.toolEnvironment
        try await eventually("dunst to own org.freedesktop.Notifications") {
            guard dunst.isRunning else { throw FixtureError("dunst did not start: \(dunst.report)") }
            let owner = try await Self.busctl(
                address,
                tools,
                [
                    "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s",
                    "org.freedesktop.Notifications",
                ]
            )
            guard owner["data"]?[0]?.bool == true else { return false }
            let pid = try await Self.busctl(
                address,
                tools,
                [
                    "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s",
                    "org.freedesktop.Notifications",
                ]
            )
            return pid["data"]?[0]?.int == Int(dunst.pid)
        }
    }

    /// Stops dunst with SIGTERM and waits until it exited and the name has no owner.
    package func stopNotificationServer() async throws {
        guard let dunst = self.dunst.withLock({ $0.current }) else { return }
        if dunst.isRunning {
            kill(dunst.pid, SIGTERM)
            guard await dunst.waitForExit(within: 20) != nil else { throw FixtureError("dunst ignored SIGTERM: \(dunst.report)") }
        }
        self.dunst.withLock { $0.current = nil }
        let address = self.sessionBusAddress
        let tools = self.toolEnvironment
        try await eventually("org.freedesktop.Notifications to lose its owner") {
            try await !Self.hasOwner("org.freedesktop.Notifications", address: address, environment: tools)
        }
    }

    /// Runs `dunstctl ARGUMENTS` against this desktop's dunst.
    package func dunstctl(_ arguments: String...) async throws -> String {
        let result = try await runTool("dunstctl", arguments, environment: self.toolEnvironment)
        guard result.status == 0 else {
            throw FixtureError("dunstctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// `dunstctl history`: the notifications that left the screen, newest first.
    package func history() async throws -> [HistoryEntry] {
        let json = try JSONValue(parsing: try await self.dunstctl("history"))
        return (json["data"]?[0]?.array ?? []).map { HistoryEntry(($0.object ?? [:]).mapValues(\.unwrapped)) }
    }

    /// `dunstctl count displayed`: how many notifications are on screen.
    package func displayedCount() async throws -> Int {
        let text = try await self.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else { throw FixtureError("dunstctl count displayed said \(text)") }
        return count
    }

    /// Every record dunst printed (`-print`), of this and earlier dunst processes, in order.
    package var printed: [PrintedNotification] {
        self.dunst.withLock { $0.servers }.enumerated().flatMap { index, server in
            PrintedNotification.parse(server.stdout, server: index + 1)
        }
    }

    /// The notifications the current dunst shows or queues: its printed records (the latest per id) that
    /// are not in its history, by id. dunst 1.9 has no list of them (only `dunstctl count displayed`).
    package func displayed() async throws -> [PrintedNotification] {
        guard let server = self.dunst.withLock({ state in state.current.flatMap { current in state.servers.firstIndex { $0 === current } } }) else {
            return []
        }
        let closed = Set(try await self.history().map(\.id))
        var latest: [Int: PrintedNotification] = [:]
        for record in self.printed where record.server == server + 1 { latest[record.id] = record }
        return latest.values.filter { !closed.contains($0.id) }.sorted { $0.id < $1.id }
    }

    /// Every Notify call on the session bus since the start, with the ids the server returned.
    package var notifyCalls: [NotifyCall] {
        let monitor = self.sessionBus
        return monitor.calls("Notify", interface: "org.freedesktop.Notifications").compactMap {
            NotifyCall($0, reply: monitor.reply(to: $0))
        }
    }

    /// Waits (bounded) until the session bus monitor saw a Notify call with this summary and its reply; the
    /// latest such call. (The monitor may lag behind dunst's `-print` output.)
    package func notifyCall(summary: String, within seconds: Double = 60) async throws -> NotifyCall {
        var found: NotifyCall?
        try await eventually("a Notify call with summary \(summary.debugDescription) and its reply", within: seconds) {
            found = self.notifyCalls.last { $0.summary == summary && $0.replied }
            return found != nil
        }
        return found!
    }

    /// Closes every notification (`dunstctl close-all`): they move to the history.
    package func closeAll() async throws {
        _ = try await self.dunstctl("close-all")
    }

    /// Chooses the action labelled `label` through dunst's own context menu (`dunstctl context`, the
    /// picker Tests/Fixtures/desktop/pick-action), of notification `id` or, without one, of the newest
    /// displayed notification that has it; returns once dunst emitted ActionInvoked.
    @discardableResult
    package func invokeAction(label: String, notification id: Int? = nil) async throws -> InvokedAction {
        try (label + "\n" + (id.map(String.init) ?? "") + "\n").write(toFile: self.pickFile, atomically: true, encoding: .utf8)
        let before = self.contextMenus.count
        let seen = self.sessionBus.messages.count
        let refusal = "Context menu already running"
        do {
            // dunst refuses a menu while the previous one is still being dispatched (50 ms after it ended):
            // ask again then.
            var refused = self.notificationServerStderr.components(separatedBy: refusal).count
            _ = try await self.dunstctl("context")
            try await eventually("dunst to run the context menu") {
                if self.contextMenus.count > before { return true }
                let now = self.notificationServerStderr.components(separatedBy: refusal).count
                if now > refused {
                    refused = now
                    try await Task.sleep(for: .milliseconds(50))
                    _ = try await self.dunstctl("context")
                }
                return false
            }
        } catch {
            throw FixtureError(
                "dunst did not run its context menu (it does only while a notification with actions or URLs is displayed; "
                    + "displayed: \((try? await self.displayedCount()).map(String.init) ?? "?")); dunst stderr:\n\(self.notificationServerStderr)"
            )
        }
        let menu = self.contextMenus[before]
        guard let chosen = menu.chosen else {
            throw FixtureError(
                "no action labelled \"\(label)\"\(id.map { " on notification \($0)" } ?? "") in dunst's context menu:\n"
                    + menu.lines.joined(separator: "\n")
            )
        }
        // "#<label> (<summary>) [<id>,<key>]"
        guard let open = chosen.range(of: "[", options: .backwards), chosen.hasSuffix("]"),
            let comma = chosen[open.upperBound...].firstIndex(of: ","),
            let notification = Int(chosen[open.upperBound..<comma])
        else { throw FixtureError("the picker chose a line that is no action: \(chosen)") }
        let key = String(chosen[chosen.index(after: comma)..<chosen.index(before: chosen.endIndex)])
        try await self.sessionBus.waitFor("ActionInvoked(\(notification), \(key))", after: seen) {
            $0.type == "signal" && $0.member == "ActionInvoked" && $0.interface == "org.freedesktop.Notifications"
                && $0.arguments.first?.int == notification && $0.arguments.dropFirst().first?.string == key
        }
        return InvokedAction(menu: menu.lines, chosen: chosen, notificationID: notification, key: key)
    }

    /// Every context menu the picker was shown, with the line it chose (nil: none, the menu was cancelled).
    package var contextMenus: [(lines: [String], chosen: String?)] {
        guard let log = try? String(contentsOfFile: self.pickFile + ".menu", encoding: .utf8) else { return [] }
        var menus: [(lines: [String], chosen: String?)] = []
        var lines: [String] = []
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("=> ") || line == "=>" {
                let chosen = String(line.dropFirst(3))
                menus.append((lines, chosen.isEmpty ? nil : chosen))
                lines = []
            } else if !line.isEmpty {
                lines.append(line)
            }
        }
        return menus
    }

    /// The text dunst shows for a formatted message (`HistoryEntry.message`, `PrintedNotification.formatted`):
    /// Pango's parse of the markup, as dunst does it. Throws with Pango's error where dunst would fall back
    /// to stripping tags (and log "Unable to parse markup").
    package func shownText(_ markup: String) async throws -> String {
        let result = try await runTool(Self.python, [Self.fixtures + "/pango-text"], environment: self.toolEnvironment, input: markup)
        guard result.status == 0 else { throw FixtureError("Pango rejects the markup \(markup.debugDescription): \(result.stderr)") }
        return result.stdout
    }

}
