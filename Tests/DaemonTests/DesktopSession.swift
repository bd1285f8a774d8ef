import TestSupport
import Foundation
import Glibc
import Synchronization

// A desktop made of real parts, for the daemon's notification and session tests (DESIGN.md section 6):
//
//   - a private dbus-daemon as the session bus and another as the system bus (no service activation, so
//     nothing starts behind a test's back: with dunst stopped, org.freedesktop.Notifications has no owner);
//   - Xvfb on a free display (Xvfb picks it itself: `-displayfd`);
//   - dunst 1.9 on that display and bus, with Tests/Fixtures/desktop/dunstrc, started with `-print`;
//   - python-dbusmock's `logind` template on the system bus, with one session for the current user;
//   - `busctl monitor` on the session bus from the start, so a test sees every Notify call as sent.
//
// Facts measured with Debian 12's dunst 1.9.0, libnotify-bin 0.8.1, systemd 252 and python-dbusmock 0.38:
//
// dunst
//   - `dunstctl history` (NotificationListHistory) lists only notifications that left the screen (closed by
//     the client's CloseNotification, by `dunstctl close`/`close-all`, or expired), newest first, each with
//     body, message (the formatted text, markup included), summary, appname, category,
//     default_action_name ("default" unless the client named one), icon_path, id, timestamp (monotonic µs),
//     timeout (µs, 0 = never) and progress (-1 = none). No urgency, no actions, no hints.
//   - There is no list of displayed notifications in 1.9: `dunstctl count displayed|waiting|history` gives
//     counts only. `displayed()` below derives the list from the `-print` records minus the history.
//   - `dunst -print` writes a record to stdout when a notification is queued (also for a replacement, with
//     the same id):
//         {
//         \tappname: '...'        \tsummary: '...'        \tbody: '...'         \ticon: '...'
//         \traw_icon set: false   \ticon_id: '...'        \tdesktop_entry: ''   \tcategory: ...
//         \ttimeout: 0  (ms)      \turgency: LOW|NORMAL|CRITICAL                \ttransient: 0|1
//         \tformatted: '...'      \tfg/bg/highlight/frame: #rrggbb              \tfullscreen: show
//         \tformat: ...           \tprogress: -1          \tstack_tag: ...      \tid: N
//         [\turls: { ... }]       \tactions: {} | {\n\t\t"key": "label"\n...\t} \tscript_count: N
//         }
//     one field a line (the quoted values may span lines; quotes inside are not escaped). Of the hints it
//     shows only urgency, category, desktop_entry, image/icon, transient, value (progress),
//     x-dunst-stack-tag and dunst's colour hints; sound-name and other hints appear nowhere in dunst, so
//     `notifyCalls` reads them from the bus.
//   - The context menu (`dunstctl context`) covers every displayed notification that has actions or URLs;
//     it pipes one line per action, `#<label> (<summary>) [<id>,<key>]`, and one per URL to the `dmenu`
//     command and invokes the line it prints back: dunst emits ActionInvoked(id, key), and only that: the
//     notification stays on screen until the client closes it (notify-send does, with CloseNotification:
//     NotificationClosed reason 3). With nothing actionable on screen dunst does not run the menu; a second
//     `dunstctl context` within ~50 ms of the first menu's end is refused ("Context menu already running").
//   - ActionInvoked and NotificationClosed are unicast: sent to the unique name that called Notify.
//   - markup = full: dunst itself escapes a lone `&` (and `<` that starts no tag) in summary and body, keeps
//     tags and entities, and gives the formatted text to pango_parse_markup. `<b>x</b> &amp;` shows as "x &"
//     (bold x); `&lt;b&gt;x&lt;/b&gt; &amp;amp;` shows `<b>x</b> &amp;` literally; markup Pango rejects (an
//     unclosed `<b>`) is shown stripped of tags, with "WARNING: Unable to parse markup: ..." on stderr.
//   - Notification ids need not start at 1; a restarted dunst counts from the beginning again.
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

/// A JSON value, as `busctl --json` and `dunstctl history` print them.
enum JSONValue: Equatable, Sendable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    init(parsing text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self, let int = Int(exactly: value) { int } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    subscript(key: String) -> JSONValue? { self.object?[key] }
    subscript(index: Int) -> JSONValue? { self.array.flatMap { $0.indices.contains(index) ? $0[index] : nil } }

    /// busctl prints a variant as `{"type": "s", "data": ...}`: this is its data (and anything else itself).
    var unwrapped: JSONValue {
        if let object = self.object, object.count == 2, object["type"]?.string != nil, let data = object["data"] { data } else { self }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): Int(exactly: value).map(String.init) ?? "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let values): "{" + values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The absolute path of an installed tool (the desktop tests fail, not skip, when one is missing).
func installedTool(_ name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
        let candidate = directory + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    throw FixtureError("\(name) is not installed: run scripts/setup")
}

/// Waits until `condition` holds, checking every 20 ms; throws after `seconds` (a hang fails the test).
func eventually(
    _ what: @autoclosure () -> String,
    within seconds: Double = 20,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        if Date() > deadline { throw FixtureError("timed out after \(seconds) s waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A value behind a lock, shareable with the callbacks that fill it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { self.mutex = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try self.mutex.withLock(body)
    }
}

/// A child process of the fixture (a bus, Xvfb, dunst, the logind mock, a monitor, a client) whose stdout
/// and stderr are collected.
final class FixtureProcess: Sendable {
    let name: String
    let process: Process
    private let input: Pipe?
    private let state = Locked<(out: Data, err: Data, outClosed: Bool, errClosed: Bool)>((Data(), Data(), false, false))

    /// Starts `executable` (a tool name looked up on PATH, or a path). `onOutput` sees each chunk of stdout.
    init(
        _ name: String,
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        withInput: Bool = false,
        onOutput: (@Sendable (Data) -> Void)? = nil
    ) throws {
        self.name = name
        let process = Process()
        let path = executable.contains("/") ? executable : try installedTool(executable)
        // Through `env --default-signal`: a child of the test process inherits its blocked signal mask
        // (SIGTERM, SIGINT, SIGHUP, SIGCHLD, ... are blocked there), so dunst, Xvfb or dbus-daemon would
        // never see a SIGTERM. env unblocks every signal and resets its handling to the default.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal", path] + arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if withInput {
            let input = Pipe()
            process.standardInput = input
            self.input = input
        } else {
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        }
        self.process = process
        do {
            try process.run()
        } catch {
            throw FixtureError("cannot start \(name) (\(process.executableURL?.path ?? executable)): \(error)")
        }
        // A thread per pipe, reading until EOF (readabilityHandler sometimes misses the EOF that comes
        // with the last data, and output could look unfinished).
        let state = self.state
        Self.read(out.fileHandleForReading) { data in
            if let data {
                state.withLock { $0.out.append(data) }
                onOutput?(data)
            } else {
                state.withLock { $0.outClosed = true }
            }
        }
        Self.read(err.fileHandleForReading) { data in
            state.withLock { if let data { $0.err.append(data) } else { $0.errClosed = true } }
        }
    }

    /// Reads `handle` on a thread of its own, passing each chunk and then nil at EOF.
    private static func read(_ handle: FileHandle, _ deliver: @escaping @Sendable (Data?) -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = Glibc.read(handle.fileDescriptor, &buffer, buffer.count)
                if count > 0 {
                    deliver(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            deliver(nil)
            try? handle.close()
        }
    }

    var pid: Int32 { self.process.processIdentifier }
    var isRunning: Bool { self.process.isRunning }
    var stdout: String { String(decoding: self.state.withLock { $0.out }, as: UTF8.self) }
    var stderr: String { String(decoding: self.state.withLock { $0.err }, as: UTF8.self) }

    /// What a failure message says about this process.
    var report: String {
        let status = self.isRunning ? "running" : "exited with status \(self.process.terminationStatus)"
        return "\(self.name) (pid \(self.pid), \(status)); its stderr:\n\(self.stderr)"
    }

    func write(_ text: String) {
        try? self.input?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    func closeInput() {
        try? self.input?.fileHandleForWriting.close()
    }

    /// Waits (bounded) for the process to exit and its output to end; nil if it was still running and was
    /// killed.
    func waitForExit(within seconds: Double = 20) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while self.isRunning {
            if Date() > deadline {
                kill(self.pid, SIGKILL)
                return nil
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let drained = Date().addingTimeInterval(2)
        while !self.state.withLock({ $0.outClosed && $0.errClosed }) && Date() < drained {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return self.process.terminationStatus
    }

    /// SIGTERM, a bounded wait, then SIGKILL. Blocking: for teardown.
    func terminate(within seconds: Double = 5) {
        guard self.isRunning else { return }
        kill(self.pid, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while self.isRunning && Date() < deadline { usleep(5_000) }
        if self.isRunning {
            kill(self.pid, SIGKILL)
            let killed = Date().addingTimeInterval(5)
            while self.isRunning && Date() < killed { usleep(5_000) }
        }
    }

    deinit {
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
    }
}

/// Runs a tool to completion (bounded) and returns its status, stdout and stderr.
@discardableResult
func runTool(
    _ tool: String,
    _ arguments: [String],
    environment: [String: String],
    input: String? = nil,
    within seconds: Double = 20
) async throws -> (status: Int32, stdout: String, stderr: String) {
    let child = try FixtureProcess(tool, tool, arguments, environment: environment, withInput: input != nil)
    if let input {
        child.write(input)
        child.closeInput()
    }
    guard let status = await child.waitForExit(within: seconds) else {
        throw FixtureError("\(tool) \(arguments.joined(separator: " ")) did not finish within \(seconds) s; stderr:\n\(child.stderr)")
    }
    return (status, child.stdout, child.stderr)
}

/// One message seen on a bus by `busctl monitor --json=short`.
struct BusMessage: Sendable {
    /// method_call, method_return, error or signal.
    let type: String
    let sender: String?
    let destination: String?
    let path: String?
    let interface: String?
    let member: String?
    let cookie: Int?
    let replyCookie: Int?
    let signature: String
    /// The body's arguments, variants unwrapped one level (a{sv} stays an object of `{type, data}`).
    let arguments: [JSONValue]
    let raw: JSONValue

    init?(_ json: JSONValue) {
        guard let type = json["type"]?.string else { return nil }
        self.type = type
        self.sender = json["sender"]?.string
        self.destination = json["destination"]?.string
        self.path = json["path"]?.string
        self.interface = json["interface"]?.string
        self.member = json["member"]?.string
        self.cookie = json["cookie"]?.int
        self.replyCookie = json["reply_cookie"]?.int
        self.signature = json["payload"]?["type"]?.string ?? ""
        self.arguments = json["payload"]?["data"]?.array ?? []
        self.raw = json
    }
}

/// `busctl --address=ADDRESS monitor --json=short`, parsed as it runs.
final class BusMonitor: Sendable {
    let address: String
    private let child: FixtureProcess
    private let parsed: Locked<(pending: Data, messages: [BusMessage])>

    init(address: String, environment: [String: String]) async throws {
        self.address = address
        let parsed = Locked<(pending: Data, messages: [BusMessage])>((Data(), []))
        self.parsed = parsed
        self.child = try FixtureProcess(
            "busctl monitor", "busctl", ["--address=" + address, "monitor", "--json=short"],
            environment: environment
        ) { data in
            parsed.withLock { state in
                state.pending.append(data)
                while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = state.pending[state.pending.startIndex..<newline]
                    state.pending = Data(state.pending[state.pending.index(after: newline)...])
                    if let json = try? JSONDecoder().decode(JSONValue.self, from: Data(line)), let message = BusMessage(json) {
                        state.messages.append(message)
                    }
                }
            }
        }
        // busctl says so once the bus made it a monitor (BecomeMonitor answered).
        let child = self.child
        do {
            try await eventually("busctl monitor on \(address) to start") {
                guard child.isRunning else { throw FixtureError("busctl monitor failed: \(child.report)") }
                return child.stderr.contains("Monitoring bus message stream.")
            }
        } catch {
            child.terminate()
            throw error
        }
    }

    var messages: [BusMessage] { self.parsed.withLock { $0.messages } }

    func signals(_ member: String, interface: String? = nil, path: String? = nil) -> [BusMessage] {
        self.messages.filter {
            $0.type == "signal" && $0.member == member && (interface == nil || $0.interface == interface) && (path == nil || $0.path == path)
        }
    }

    /// The method calls named `member` (of `interface`, if given).
    func calls(_ member: String, interface: String? = nil) -> [BusMessage] {
        self.messages.filter { $0.type == "method_call" && $0.member == member && (interface == nil || $0.interface == interface) }
    }

    /// The reply (method_return or error) to `call`.
    func reply(to call: BusMessage) -> BusMessage? {
        self.messages.first {
            ($0.type == "method_return" || $0.type == "error") && $0.replyCookie == call.cookie && $0.destination == call.sender
        }
    }

    /// Waits (bounded) for a message that satisfies `predicate`, seen after the first `skip` messages.
    @discardableResult
    func waitFor(_ what: String, after skip: Int = 0, within seconds: Double = 20, _ predicate: (BusMessage) -> Bool) async throws -> BusMessage {
        var found: BusMessage?
        try await eventually("\(what) on \(self.address)", within: seconds) {
            found = self.messages.dropFirst(skip).first(where: predicate)
            return found != nil
        }
        return found!
    }

    func stop() { self.child.terminate() }

    deinit { self.child.terminate() }
}

/// A notification action: the key the client sent and the label shown.
struct NotificationAction: Hashable, Sendable, CustomStringConvertible {
    let key: String
    let label: String
    var description: String { "\(self.key)=\(self.label)" }
}

/// One record dunst printed with `-print` (see the format at the top of this file).
struct PrintedNotification: Sendable {
    /// Which dunst process printed it: 1 for the first, 2 after the first restart, and so on.
    let server: Int
    let id: Int
    let appname: String
    let summary: String
    let body: String
    /// LOW, NORMAL or CRITICAL.
    let urgency: String
    /// Milliseconds; 0 means it stays until closed.
    let timeout: Int
    let category: String
    let icon: String
    let transient: Bool
    /// The text dunst renders (format applied, markup included).
    let formatted: String
    let progress: Int
    let stackTag: String
    /// In dunst's order, which is its hash table's and not necessarily the client's.
    let actions: [NotificationAction]
    let urls: String?
    /// Every `name: value` field as printed (quoted values without their quotes).
    let fields: [String: String]

    static let order = [
        "appname", "summary", "body", "icon", "raw_icon set", "icon_id", "desktop_entry", "category", "timeout",
        "urgency", "transient", "formatted", "fg", "bg", "highlight", "frame", "fullscreen", "format", "progress",
        "stack_tag", "id",
    ]
    static let quoted: Set<String> = ["appname", "summary", "body", "icon", "icon_id", "desktop_entry", "formatted"]

    /// Parses one record: the text between "{\n" and "\n}\n".
    init?(record: String, server: Int) {
        var fields: [String: String] = [:]
        var rest = Substring(record)
        for (index, name) in Self.order.enumerated() {
            guard rest.hasPrefix("\t\(name): ") else { return nil }
            rest = rest.dropFirst(name.count + 3)
            let end: String.Index
            if index + 1 < Self.order.count {
                guard let next = rest.range(of: "\n\t\(Self.order[index + 1]): ") else { return nil }
                end = next.lowerBound
            } else {
                end = rest.firstIndex(of: "\n") ?? rest.endIndex
            }
            var value = String(rest[..<end])
            if Self.quoted.contains(name), value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            fields[name] = value
            rest = rest[end...].dropFirst()  // the newline
        }
        var urls: String?
        var actions: [NotificationAction] = []
        let lines = rest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line == "\turls:" {
                var collected: [String] = []
                index += 2  // "\t{"
                while index < lines.count && lines[index] != "\t}" {
                    collected.append(lines[index].trimmingCharacters(in: CharacterSet(charactersIn: "\t")))
                    index += 1
                }
                urls = collected.joined(separator: "\n")
            } else if line == "\tactions: {" {
                index += 1
                while index < lines.count && lines[index] != "\t}" {
                    // \t\t"key": "label"
                    let entry = lines[index].trimmingCharacters(in: CharacterSet(charactersIn: "\t"))
                    if let separator = entry.range(of: "\": \""), entry.hasPrefix("\""), entry.hasSuffix("\"") {
                        actions.append(NotificationAction(
                            key: String(entry[entry.index(after: entry.startIndex)..<separator.lowerBound]),
                            label: String(entry[separator.upperBound..<entry.index(before: entry.endIndex)])
                        ))
                    }
                    index += 1
                }
            } else if let colon = line.range(of: ": "), line.hasPrefix("\t") {
                fields[String(line[line.index(after: line.startIndex)..<colon.lowerBound])] = String(line[colon.upperBound...])
            }
            index += 1
        }
        guard let id = Int(fields["id"] ?? "") else { return nil }
        self.server = server
        self.id = id
        self.appname = fields["appname"] ?? ""
        self.summary = fields["summary"] ?? ""
        self.body = fields["body"] ?? ""
        self.urgency = fields["urgency"] ?? ""
        self.timeout = Int(fields["timeout"] ?? "") ?? 0
        self.category = fields["category"] ?? ""
        self.icon = fields["icon"] ?? ""
        self.transient = fields["transient"] == "1"
        self.formatted = fields["formatted"] ?? ""
        self.progress = Int(fields["progress"] ?? "") ?? -1
        self.stackTag = fields["stack_tag"] ?? ""
        self.actions = actions
        self.urls = urls
        self.fields = fields
    }

    /// The complete records in dunst's stdout so far.
    static func parse(_ output: String, server: Int) -> [PrintedNotification] {
        var records: [PrintedNotification] = []
        var rest = Substring(output)
        while let start = rest.range(of: "{\n\tappname: "),
            let counted = rest[start.upperBound...].range(of: "\n\tscript_count: "),
            let end = rest[counted.upperBound...].range(of: "\n}\n")
        {
            let body = rest[rest.index(start.lowerBound, offsetBy: 2)..<end.lowerBound]
            if let record = PrintedNotification(record: String(body) + "\n", server: server) { records.append(record) }
            rest = rest[end.upperBound...]
        }
        return records
    }
}

/// One entry of `dunstctl history`.
struct HistoryEntry: Sendable {
    let id: Int
    let appname: String
    let summary: String
    let body: String
    /// The formatted text dunst showed (markup included).
    let message: String
    let category: String
    let defaultActionName: String
    let iconPath: String
    /// Monotonic microseconds.
    let timestamp: Int
    /// Microseconds; 0 means it stayed until closed.
    let timeout: Int
    let progress: Int
    /// Every field, unwrapped.
    let fields: [String: JSONValue]

    init(_ fields: [String: JSONValue]) {
        self.fields = fields
        self.id = fields["id"]?.int ?? -1
        self.appname = fields["appname"]?.string ?? ""
        self.summary = fields["summary"]?.string ?? ""
        self.body = fields["body"]?.string ?? ""
        self.message = fields["message"]?.string ?? ""
        self.category = fields["category"]?.string ?? ""
        self.defaultActionName = fields["default_action_name"]?.string ?? ""
        self.iconPath = fields["icon_path"]?.string ?? ""
        self.timestamp = fields["timestamp"]?.int ?? 0
        self.timeout = fields["timeout"]?.int ?? 0
        self.progress = fields["progress"]?.int ?? -1
    }
}

/// One org.freedesktop.Notifications.Notify call seen on the session bus, with the id the server returned.
struct NotifyCall: Sendable {
    let sender: String
    let appName: String
    let replacesID: Int
    let icon: String
    let summary: String
    let body: String
    /// In the order the client sent them.
    let actions: [NotificationAction]
    /// Unwrapped values: urgency is a number (the byte), sound-name a string, ...
    let hints: [String: JSONValue]
    let expireTimeout: Int
    /// The id in the server's reply; nil before the reply or after an error.
    let returnedID: Int?
    /// Whether the monitor saw the reply (a method_return or an error) yet.
    let replied: Bool

    var urgency: Int? { self.hints["urgency"]?.int }

    init?(_ call: BusMessage, reply: BusMessage?) {
        let arguments = call.arguments
        guard call.signature == "susssasa{sv}i", arguments.count == 8 else { return nil }
        self.sender = call.sender ?? ""
        self.appName = arguments[0].string ?? ""
        self.replacesID = arguments[1].int ?? 0
        self.icon = arguments[2].string ?? ""
        self.summary = arguments[3].string ?? ""
        self.body = arguments[4].string ?? ""
        let flat = (arguments[5].array ?? []).compactMap(\.string)
        self.actions = stride(from: 0, to: flat.count - 1, by: 2).map { NotificationAction(key: flat[$0], label: flat[$0 + 1]) }
        self.hints = (arguments[6].object ?? [:]).mapValues(\.unwrapped)
        self.expireTimeout = arguments[7].int ?? 0
        self.returnedID = reply?.type == "method_return" ? reply?.arguments.first?.int : nil
        self.replied = reply != nil
    }
}

/// What the context-menu picker was offered and chose, and the action dunst invoked.
struct InvokedAction: Sendable {
    /// The lines dunst piped to the picker.
    let menu: [String]
    let chosen: String
    let notificationID: Int
    let key: String
}

/// A logind inhibitor lock as ListInhibitors reports it (the mock fixes uid and pid at 1000 and 123456).
struct Inhibitor: Equatable, Sendable {
    let what: String
    let who: String
    let why: String
    let mode: String
    let uid: Int
    let pid: Int
}

/// The real-parts desktop: see the top of this file. Everything stops and the scratch folder goes when it
/// is released (or at `stop()`).
final class DesktopSession {
    static let fixtures = BuildProducts.packageRoot + "/Tests/Fixtures/desktop"

    /// The python that scripts/setup installed python-dbusmock into (a venv over Debian's python3 with its
    /// python3-dbus and python3-gi); ATTENDANT_TEST_PYTHON overrides it.
    static let python: String = ProcessInfo.processInfo.environment["ATTENDANT_TEST_PYTHON"]
        ?? BuildProducts.packageRoot + "/.build-python/bin/python3"

    static let login1 = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"
    static let mockInterface = "org.freedesktop.DBus.Mock"

    let directory: String
    let sessionBusAddress: String
    let systemBusAddress: String
    /// ":N"
    let display: String
    /// The logind session the mock knows for this user.
    let sessionID = "test1"
    var sessionPath: String { "/org/freedesktop/login1/session/" + self.sessionID }
    /// The file the context-menu picker reads (see Tests/Fixtures/desktop/pick-action).
    let pickFile: String
    /// Every message on the session bus since the start.
    let sessionBus: BusMonitor

    /// What a test merges into the daemon's environment.
    var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": self.sessionBusAddress,
            "DBUS_SYSTEM_BUS_ADDRESS": self.systemBusAddress,
            "DISPLAY": self.display,
            "XDG_SESSION_ID": self.sessionID,
        ]
    }

    /// The whole environment for a tool run in this desktop (no Wayland: dunst would prefer it).
    var toolEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    private let children: Children
    private let sessionDaemon: FixtureProcess
    private let systemDaemon: FixtureProcess
    private let xvfb: FixtureProcess
    private let logind: FixtureProcess
    private let dunst = Mutex<(current: FixtureProcess?, servers: [FixtureProcess])>((nil, []))

    /// The processes to stop, in start order, and the folder to remove; stops them if `init` fails half-way.
    private final class Children: Sendable {
        let directory: String
        let list = Mutex<[FixtureProcess]>([])

        init(directory: String) { self.directory = directory }

        func add(_ child: FixtureProcess) { self.list.withLock { $0.append(child) } }

        func stop() {
            for child in self.list.withLock({ $0 }).reversed() { child.terminate() }
            try? FileManager.default.removeItem(atPath: self.directory)
        }

        deinit { self.stop() }
    }

    init() async throws {
        let directory = try makeTemporaryFolder("attendant-desktop")
        let children = Children(directory: directory)
        self.directory = directory
        self.children = children
        self.pickFile = directory + "/pick"
        var base = ProcessInfo.processInfo.environment
        for key in ["WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DISPLAY"] { base[key] = nil }

        // The two buses.
        func startBus(_ name: String) async throws -> (FixtureProcess, String) {
            let config = directory + "/\(name).conf"
            try Self.busConfiguration(socket: directory + "/\(name).sock").write(toFile: config, atomically: true, encoding: .utf8)
            let bus = try FixtureProcess(
                "dbus-daemon (\(name) bus)", "dbus-daemon", ["--config-file=" + config, "--nofork", "--print-address"],
                environment: base
            )
            children.add(bus)
            try await eventually("the \(name) bus to print its address", within: 30) {
                guard bus.isRunning else { throw FixtureError("the \(name) bus did not start: \(bus.report)") }
                return bus.stdout.contains("\n")
            }
            return (bus, bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        (self.sessionDaemon, self.sessionBusAddress) = try await startBus("session")
        (self.systemDaemon, self.systemBusAddress) = try await startBus("system")

        // Xvfb picks a free display itself and writes its number to fd 1 once it accepts clients.
        let xvfb = try FixtureProcess(
            "Xvfb", "Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "1280x1024x24"],
            environment: base
        )
        children.add(xvfb)
        self.xvfb = xvfb
        try await eventually("Xvfb to report its display", within: 30) {
            guard xvfb.isRunning else { throw FixtureError("Xvfb did not start: \(xvfb.report)") }
            return xvfb.stdout.contains("\n")
        }
        self.display = ":" + xvfb.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let environment = base.merging([
            "DBUS_SESSION_BUS_ADDRESS": self.sessionBusAddress,
            "DBUS_SYSTEM_BUS_ADDRESS": self.systemBusAddress,
            "DISPLAY": self.display,
        ]) { $1 }

        self.sessionBus = try await BusMonitor(address: self.sessionBusAddress, environment: environment)

        // logind: python-dbusmock's template on the system bus, plus a session for this user.
        guard access(Self.python, X_OK) == 0 else {
            throw FixtureError("\(Self.python) is missing: run scripts/setup (it installs python-dbusmock there)")
        }
        let logind = try FixtureProcess(
            "python-dbusmock logind", Self.python, ["-m", "dbusmock", "--system", "--template", "logind"],
            environment: environment
        )
        children.add(logind)
        self.logind = logind
        let systemBus = self.systemBusAddress
        try await eventually("the logind mock to own \(Self.login1)", within: 30) {
            guard logind.isRunning else { throw FixtureError("the logind mock did not start: \(logind.report)") }
            return try await Self.hasOwner(Self.login1, address: systemBus, environment: environment)
        }
        let uid = getuid()
        let user = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "user\(uid)"
        try await Self.busctl(
            systemBus, environment,
            ["call", Self.login1, Self.managerPath, Self.mockInterface, "AddSession", "ssusb", self.sessionID, "seat0", "\(uid)", user, "true"]
        )
        try await Self.busctl(
            systemBus, environment,
            [
                "call", Self.login1, Self.managerPath, Self.mockInterface, "AddMethod", "sssss", Self.managerInterface,
                "GetSessionByPID", "u", "o", "ret = '/org/freedesktop/login1/session/\(self.sessionID)'",
            ]
        )

        try await self.startNotificationServer()
    }

    /// A bus that owns no activatable services and lets everyone (this user) talk and monitor.
    static func busConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    // MARK: Buses

    /// `busctl --address=ADDRESS --json=short ARGUMENTS`; its output parsed, or null when it printed nothing.
    @discardableResult
    static func busctl(_ address: String, _ environment: [String: String], _ arguments: [String]) async throws -> JSONValue {
        let result = try await runTool("busctl", ["--address=" + address, "--json=short", "--timeout=20"] + arguments, environment: environment)
        guard result.status == 0 else {
            throw FixtureError("busctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? .null : try JSONValue(parsing: text)
    }

    static func hasOwner(_ name: String, address: String, environment: [String: String]) async throws -> Bool {
        let reply = try await Self.busctl(
            address, environment,
            ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name]
        )
        return reply["data"]?[0]?.bool == true
    }

    /// Calls a method on the system bus (the logind mock); returns the reply's arguments.
    @discardableResult
    func callSystemBus(_ path: String, _ interface: String, _ method: String, _ signature: String = "", _ arguments: [String] = []) async throws -> [JSONValue] {
        let reply = try await Self.busctl(
            self.systemBusAddress, self.toolEnvironment,
            ["call", Self.login1, path, interface, method] + (signature.isEmpty ? [] : [signature] + arguments)
        )
        return reply["data"]?.array ?? []
    }

    /// Starts a monitor on the system bus (started when asked, so it sees what follows).
    func monitorSystemBus() async throws -> BusMonitor {
        try await BusMonitor(address: self.systemBusAddress, environment: self.toolEnvironment)
    }

    // MARK: Notifications (dunst)

    var notificationServerRunning: Bool { self.dunst.withLock { $0.current?.isRunning ?? false } }

    /// The current dunst's stderr ("WARNING: Unable to parse markup: ..." and so on).
    var notificationServerStderr: String { self.dunst.withLock { $0.current?.stderr ?? "" } }

    /// Starts dunst (again) and waits until it owns org.freedesktop.Notifications.
    func startNotificationServer() async throws {
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
        try await eventually("dunst to own org.freedesktop.Notifications", within: 30) {
            guard dunst.isRunning else { throw FixtureError("dunst did not start: \(dunst.report)") }
            let owner = try await Self.busctl(
                address, tools,
                ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", "org.freedesktop.Notifications"]
            )
            guard owner["data"]?[0]?.bool == true else { return false }
            let pid = try await Self.busctl(
                address, tools,
                ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s", "org.freedesktop.Notifications"]
            )
            return pid["data"]?[0]?.int == Int(dunst.pid)
        }
    }

    /// Stops dunst with SIGTERM and waits until it exited and the name has no owner.
    func stopNotificationServer() async throws {
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
    func dunstctl(_ arguments: String...) async throws -> String {
        let result = try await runTool("dunstctl", arguments, environment: self.toolEnvironment)
        guard result.status == 0 else {
            throw FixtureError("dunstctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// `dunstctl history`: the notifications that left the screen, newest first.
    func history() async throws -> [HistoryEntry] {
        let json = try JSONValue(parsing: try await self.dunstctl("history"))
        return (json["data"]?[0]?.array ?? []).map { HistoryEntry(($0.object ?? [:]).mapValues(\.unwrapped)) }
    }

    /// `dunstctl count displayed`: how many notifications are on screen.
    func displayedCount() async throws -> Int {
        let text = try await self.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else { throw FixtureError("dunstctl count displayed said \(text)") }
        return count
    }

    /// Every record dunst printed (`-print`), of this and earlier dunst processes, in order.
    var printed: [PrintedNotification] {
        self.dunst.withLock { $0.servers }.enumerated().flatMap { index, server in
            PrintedNotification.parse(server.stdout, server: index + 1)
        }
    }

    /// The notifications the current dunst shows or queues: its printed records (the latest per id) that
    /// are not in its history, by id. dunst 1.9 has no list of them (only `dunstctl count displayed`).
    func displayed() async throws -> [PrintedNotification] {
        guard let server = self.dunst.withLock({ state in state.current.flatMap { current in state.servers.firstIndex { $0 === current } } }) else {
            return []
        }
        let closed = Set(try await self.history().map(\.id))
        var latest: [Int: PrintedNotification] = [:]
        for record in self.printed where record.server == server + 1 { latest[record.id] = record }
        return latest.values.filter { !closed.contains($0.id) }.sorted { $0.id < $1.id }
    }

    /// Every Notify call on the session bus since the start, with the ids the server returned.
    var notifyCalls: [NotifyCall] {
        let monitor = self.sessionBus
        return monitor.calls("Notify", interface: "org.freedesktop.Notifications").compactMap {
            NotifyCall($0, reply: monitor.reply(to: $0))
        }
    }

    /// Waits (bounded) until the session bus monitor saw a Notify call with this summary and its reply; the
    /// latest such call. (The monitor may lag behind dunst's `-print` output.)
    func notifyCall(summary: String, within seconds: Double = 20) async throws -> NotifyCall {
        var found: NotifyCall?
        try await eventually("a Notify call with summary \(summary.debugDescription) and its reply", within: seconds) {
            found = self.notifyCalls.last { $0.summary == summary && $0.replied }
            return found != nil
        }
        return found!
    }

    /// Closes every notification (`dunstctl close-all`): they move to the history.
    func closeAll() async throws {
        _ = try await self.dunstctl("close-all")
    }

    /// Chooses the action labelled `label` through dunst's own context menu (`dunstctl context`, the
    /// picker Tests/Fixtures/desktop/pick-action), of notification `id` or, without one, of the newest
    /// displayed notification that has it; returns once dunst emitted ActionInvoked.
    @discardableResult
    func invokeAction(label: String, notification id: Int? = nil) async throws -> InvokedAction {
        try (label + "\n" + (id.map(String.init) ?? "") + "\n").write(toFile: self.pickFile, atomically: true, encoding: .utf8)
        let before = self.contextMenus.count
        let seen = self.sessionBus.messages.count
        let refusal = "Context menu already running"
        do {
            // dunst refuses a menu while the previous one is still being dispatched (50 ms after it ended):
            // ask again then.
            var refused = self.notificationServerStderr.components(separatedBy: refusal).count
            _ = try await self.dunstctl("context")
            try await eventually("dunst to run the context menu", within: 20) {
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
            throw FixtureError("no action labelled \"\(label)\"\(id.map { " on notification \($0)" } ?? "") in dunst's context menu:\n" + menu.lines.joined(separator: "\n"))
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
    var contextMenus: [(lines: [String], chosen: String?)] {
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
    func shownText(_ markup: String) async throws -> String {
        let result = try await runTool(Self.python, [Self.fixtures + "/pango-text"], environment: self.toolEnvironment, input: markup)
        guard result.status == 0 else { throw FixtureError("Pango rejects the markup \(markup.debugDescription): \(result.stderr)") }
        return result.stdout
    }

    // MARK: logind (python-dbusmock)

    /// Emits org.freedesktop.login1.Manager.PrepareForSleep(start) (after setting PreparingForSleep).
    func prepareForSleep(_ start: Bool) async throws {
        try await self.callSystemBus(
            Self.managerPath, Self.mockInterface, "UpdateProperties", "sa{sv}", [Self.managerInterface, "1", "PreparingForSleep", "b", "\(start)"]
        )
        try await self.callSystemBus(
            Self.managerPath, Self.mockInterface, "EmitSignal", "sssav", [Self.managerInterface, "PrepareForSleep", "b", "1", "b", "\(start)"]
        )
    }

    /// The session's Lock signal (the session object's Lock method emits it, as `loginctl lock-session`).
    func lock() async throws {
        try await self.callSystemBus(self.sessionPath, Self.sessionInterface, "Lock")
    }

    /// The session's Unlock signal.
    func unlock() async throws {
        try await self.callSystemBus(self.sessionPath, Self.sessionInterface, "Unlock")
    }

    /// The inhibitor locks held now (ListInhibitors; a lock goes when its holder closes the fd).
    func inhibitors() async throws -> [Inhibitor] {
        let reply = try await self.callSystemBus(Self.managerPath, Self.managerInterface, "ListInhibitors")
        return (reply.first?.array ?? []).compactMap { entry in
            guard let fields = entry.array, fields.count == 6 else { return nil }
            return Inhibitor(
                what: fields[0].string ?? "", who: fields[1].string ?? "", why: fields[2].string ?? "",
                mode: fields[3].string ?? "", uid: fields[4].int ?? -1, pid: fields[5].int ?? -1
            )
        }
    }

    /// The arguments of every call of `method` on `path` the mock logged (e.g. "Inhibit"), oldest first.
    func logindCalls(_ method: String, path: String = DesktopSession.managerPath) async throws -> [[JSONValue]] {
        let reply = try await self.callSystemBus(path, Self.mockInterface, "GetMethodCalls", "s", [method])
        return (reply.first?.array ?? []).map { ($0[1]?.array ?? []).map(\.unwrapped) }
    }

    // MARK: Teardown

    /// Stops every part and removes the scratch folder.
    func stop() {
        self.sessionBus.stop()
        self.children.stop()
    }

    deinit { self.stop() }
}
