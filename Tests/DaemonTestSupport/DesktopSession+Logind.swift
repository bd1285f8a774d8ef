import Foundation

// Facts measured with systemd 252 and python-dbusmock 0.38:
//
// python-dbusmock's logind template
//   - It has no sessions until one is added with the mock's AddSession(ssusb) (which also adds the seat and
//     the user); this fixture adds session `sessionID` on seat0 for the current uid. GetSession(id) works
//     (it returns the path without checking); GetSessionByPID does not exist in the template: the fixture
//     adds one that returns this session for any pid. So a daemon finds its session either way:
//     GetSession($XDG_SESSION_ID) or GetSessionByPID(getpid()). (sd_pid_get_session() and other sd-login
//     calls read /run/systemd and /proc, not the bus: they do not see the mock.)
//   - The session object's Lock and Unlock methods emit the Lock/Unlock signals on the session's path
//     (interface org.freedesktop.login1.Session), as logind does for `loginctl lock-session`.
//   - PrepareForSleep is emitted through the mock's EmitSignal; the PreparingForSleep property is updated
//     beforehand with the mock's UpdateProperties (which also emits PropertiesChanged).
//   - Inhibit(what, who, why, mode) returns the write end of a pipe and watches the read end: when the
//     caller closes its fd (every copy), the lock leaves ListInhibitors. ListInhibitors reports uid 1000
//     and pid 123456 for every lock (the caller is not recorded), and BlockInhibited/DelayInhibited do not
//     exist. Every call is in the mock's call log (GetMethodCalls: time and arguments, not the caller).

/// A logind inhibitor lock as ListInhibitors reports it (the mock fixes uid and pid at 1000 and 123456).
package struct Inhibitor: Equatable, Sendable {
    package let what: String
    package let who: String
    package let why: String
    package let mode: String
    package let uid: Int
    package let pid: Int

    package init(what: String, who: String, why: String, mode: String, uid: Int, pid: Int) {
        self.what = what
        self.who = who
        self.why = why
        self.mode = mode
        self.uid = uid
        self.pid = pid
    }
}

extension DesktopSession {
    // MARK: logind (python-dbusmock)

    /// Emits org.freedesktop.login1.Manager.PrepareForSleep(start) (after setting PreparingForSleep).
    package func prepareForSleep(_ start: Bool) async throws {
        try await self.callSystemBus(
            Self.managerPath,
            Self.mockInterface,
            "UpdateProperties",
            "sa{sv}",
            [Self.managerInterface, "1", "PreparingForSleep", "b", "\(start)"]
        )
        try await self.callSystemBus(
            Self.managerPath,
            Self.mockInterface,
            "EmitSignal",
            "sssav",
            [Self.managerInterface, "PrepareForSleep", "b", "1", "b", "\(start)"]
        )
    }

    /// The session's Lock signal (the session object's Lock method emits it, as `loginctl lock-session`).
    package func lock() async throws {
        try await self.callSystemBus(self.sessionPath, Self.sessionInterface, "Lock")
    }

    /// The session's Unlock signal.
    package func unlock() async throws {
        try await self.callSystemBus(self.sessionPath, Self.sessionInterface, "Unlock")
    }

    /// The inhibitor locks held now (ListInhibitors; a lock goes when its holder closes the fd).
    package func inhibitors() async throws -> [Inhibitor] {
        let reply = try await self.callSystemBus(Self.managerPath, Self.managerInterface, "ListInhibitors")
        return (reply.first?.array ?? []).compactMap { entry in
            guard let fields = entry.array, fields.count == 6 else { return nil }
            return Inhibitor(
                what: fields[0].string ?? "",
                who: fields[1].string ?? "",
                why: fields[2].string ?? "",
                mode: fields[3].string ?? "",
                uid: fields[4].int ?? -1,
                pid: fields[5].int ?? -1
            )
        }
    }

    /// The arguments of every call of `method` on `path` the mock logged (e.g. "Inhibit"), oldest first.
    package func logindCalls(_ method: String, path: String = DesktopSession.managerPath) async throws -> [[JSONValue]] {
        let reply = try await self.callSystemBus(path, Self.mockInterface, "GetMethodCalls", "s", [method])
        return (reply.first?.array ?? []).map { ($0[1]?.array ?? []).map(\.unwrapped) }
    }

}
