import TestSupport
import Foundation
import Glibc
import Synchronization

// The voice channel's real peers (DESIGN.md section 6, issue 4 "Real peers"), for the SIP plugin's tests:
//
//   - kamailio 5.6 (Debian 12) as registrar and proxy on 127.0.0.1, one UDP and TCP port picked free, with
//     Tests/Fixtures/voice/kamailio.cfg: in-memory location table, Digest with ephemeral credentials
//     (auth_ephemeral) or RFC 8898 Bearer tokens (bearer.py under app_python3), 423 below Min-Expires, RFC 5626
//     outbound on request, INVITEs to a registered user relayed to the address it registered from;
//   - baresip 1.0 (Debian 12's baresip-core) as the caller, one process per call, driven over ctrl_tcp, its
//     SIP trace (`-s`) read back;
//   - sipp 3.6 (Debian's sip-tester) as an independent registering client and scripted callee (the
//     fixture's self-test uses it; a plugin test may too).
//
// Facts measured with Debian 12's kamailio 5.6.3, baresip 1.0.0 and sipp 3.6.1:
//
// kamailio
//   - `kamailio -DD -E` stays in the foreground (its worker processes are its children) and logs to stderr;
//     `-l udp:127.0.0.1:P -l tcp:127.0.0.1:P` replace the cfg's listeners, `-A 'NAME="value"'` sets a
//     define the cfg uses (the secret, the ctl socket, min/max expires, ...), `-Y DIR` is its runtime folder.
//     SIGTERM to the main process stops every worker and frees the ports (it does not signal its process
//     group); the location table is in memory, so a restarted registrar has forgotten every contact.
//   - The ctl module answers kamcmd on a private unix socket (`-s unix:PATH`); `ul.dump` prints nested
//     `Name: {` blocks (see RegisteredContact.parse). The socket exists once the workers run, after the SIP
//     sockets are bound, so a successful `kamcmd core.version` means kamailio listens.
//   - auth_ephemeral (kamailio-autheph-modules): autheph_www(realm) returns 1 when the Digest response is
//     right for password base64(HMAC-SHA1(secret, username)) and the username's leading timestamp is in the
//     future; -5 without credentials, -2 for a wrong password, -7 for an expired timestamp, -1 for a username
//     without a timestamp. The Digest algorithm is the auth module's `algorithm` (MD5 by default; "SHA-256"
//     works with ephemeral credentials too: the challenge then says algorithm=SHA-256). autheph_check_to()
//     compares the part after the colon with the To user. The cfg challenges (401, qop=auth) for -5/-2/-4
//     and answers 403 for -7/-1 and for a user registering someone else's AoR.
//   - registrar: min_expires_mode 1 gives `423 Interval Too Brief` with `Min-Expires: <min_expires>` (checked
//     after authentication); an Expires above max_expires is granted as max_expires. outbound_mode 1: a
//     REGISTER with `Supported: outbound`, `reg-id` and `+sip.instance` gets `Require: outbound` and, with
//     flow_timer > 0, `Flow-Timer: N`; the contact keeps its instance, reg-id and TCP connection. GRUUs
//     (pub-gruu, temp-gruu) come back when +sip.instance is present. CRLFCRLF keep-alives on TCP are answered
//     with CRLF (tcp_crlf_ping, on by default).
//   - app_python3 (kamailio-python3-modules) runs Debian's Python 3.11 inside kamailio; bearer.py verifies an
//     HS256 JWT fully (signature, exp, nbf, identity): Bearer mode is real, not a presence check.
//   - A CANCEL is relayed to the callee; the callee's 487 goes back to the caller.
//
// baresip
//   - `baresip -f DIR` reads DIR/config and DIR/accounts, writes DIR/uuid; `-s` prints every SIP message sent
//     or received to stdout as ESC[36;1m#\n<PROTO> <src> -> <dst>\n<message>ESC[;m.
//   - `sip_listen 127.0.0.1:P` binds UDP and TCP on P and TLS on P+1 (so P+1 must be free too).
//   - Headless audio: ausine as source, aubridge ("nil" device) as player and alert; 1.0's aufile has no
//     player, and without a player module a call cannot start its audio.
//   - ctrl_tcp (module_app ctrl_tcp.so, ctrl_tcp_listen): netstring-framed JSON. A command
//     {"command":"dial","params":"sip:...","token":"t1"} is answered {"response":true,"ok":true,"data":"",
//     "token":"t1"}; events {"event":true,"class":"call","type":"CALL_RINGING"|"CALL_ESTABLISHED"|
//     "CALL_CLOSED",...,"param":...}: CALL_CLOSED's param is the final response ("603 Decline",
//     "480 Temporarily Unavailable") or "Connection reset by user" after a local hangup. Events only reach a
//     connected client.
//   - `hangup` on a ringing outgoing call sends CANCEL; the 487 that follows arrives after baresip dropped
//     the call ("unhandeled response ... 487"), and it does not ACK it (kamailio retransmits it a few times).
//   - baresip follows a 3xx itself: after 302 it sends a new INVITE to the Contact of the 302.
//   - An account line `"Name" <sip:user@host>;regint=0` never registers; with auth_user/auth_pass and
//     regint it registers (Digest, qop=auth); `sipnat=outbound;outbound="sip:host:port;transport=tcp"` makes it
//     an RFC 5626 client (Supported: outbound, path; reg-id=1; +sip.instance from DIR/uuid).
//   - SIGTERM: "ua: stop all", unregistering first; it can take a few seconds.
//
// sipp
//   - `-trace_msg -message_file F` writes every message with a separator line, "UDP message sent (N bytes):"
//     or "... message received [N] bytes :", a blank line and the message.
//   - In client mode it matches incoming requests to its calls by Call-ID, so it cannot register and then
//     take an INVITE in one run: SIPp.callee registers with one run and answers with a second on the same
//     port (UDP only).

/// Free ports on 127.0.0.1.
enum LoopbackPort {
    /// A port free for UDP and TCP alike (a SIP URI's port serves both); with `andNextTCP`, TCP on the port
    /// above too.
    static func pick(andNextTCP: Bool = false) throws -> UInt16 {
        for _ in 0..<200 {
            guard let udp = Self.bind(Int32(SOCK_DGRAM.rawValue), 0) else { continue }
            defer { close(udp.fd) }
            guard udp.port < 65535, let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), udp.port) else { continue }
            defer { close(tcp.fd) }
            if andNextTCP {
                guard let next = Self.bind(Int32(SOCK_STREAM.rawValue), udp.port + 1) else { continue }
                close(next.fd)
            }
            return udp.port
        }
        throw FixtureError("found no free UDP and TCP port on 127.0.0.1")
    }

    /// A free TCP port, none of `avoiding`.
    static func pickTCP(avoiding: Set<UInt16> = []) throws -> UInt16 {
        for _ in 0..<200 {
            guard let tcp = Self.bind(Int32(SOCK_STREAM.rawValue), 0) else { continue }
            close(tcp.fd)
            if !avoiding.contains(tcp.port) { return tcp.port }
        }
        throw FixtureError("found no free TCP port on 127.0.0.1")
    }

    private static func bind(_ type: Int32, _ port: UInt16) -> (fd: Int32, port: UInt16)? {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            return nil
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

/// The pids of every descendant of `pid` (from /proc/*/stat).
func descendantProcesses(of pid: Int32) -> [Int32] {
    var children: [Int32: [Int32]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else { continue }
        // "pid (comm) state ppid ..."
        let fields = stat[close.upperBound...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(child) }
    }
    var result: [Int32] = []
    var queue = [pid]
    while let next = queue.popLast() {
        for child in children[next] ?? [] {
            result.append(child)
            queue.append(child)
        }
    }
    return result
}

/// The processes a fixture started, stopped in reverse order, and its scratch folder.
final class FixtureChildren: Sendable {
    let directory: String
    private let list = Mutex<[(process: FixtureProcess, stop: @Sendable (FixtureProcess) -> Void)]>([])

    init(directory: String) { self.directory = directory }

    func add(_ child: FixtureProcess, stop: @escaping @Sendable (FixtureProcess) -> Void = { $0.terminate() }) {
        self.list.withLock { $0.append((child, stop)) }
    }

    func stop() {
        for entry in self.list.withLock({ list in
            let all = list
            list = []
            return all
        }).reversed() {
            entry.stop(entry.process)
        }
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    deinit { self.stop() }
}

/// Ephemeral SIP credentials: username "<expiry-unix-time>:<user>", password base64(HMAC-SHA1(secret,
/// username)).
struct EphemeralCredentials: Sendable, Equatable {
    let username: String
    let password: String

    init(user: String, expiry: Int, secret: String) {
        self.username = "\(expiry):\(user)"
        self.password = Digests.base64(Digests.hmacSHA1(key: Array(secret.utf8), message: Array(self.username.utf8)))
    }
}

/// The voice peers: see the top of this file. Everything stops and the scratch folder goes when it is
/// released (or at `stop()`).
final class VoicePeers {
    enum DigestAlgorithm: String, Sendable {
        case md5 = "MD5"
        case sha256 = "SHA-256"
    }

    enum Authentication: Sendable, Equatable {
        /// Digest (401 challenge, qop=auth) with ephemeral credentials, checked by auth_ephemeral.
        case ephemeralDigest(DigestAlgorithm)
        /// RFC 8898: `WWW-Authenticate: Bearer realm="127.0.0.1"`; HS256 JWTs signed with `secret`.
        case bearer

        static var ephemeralDigest: Self { .ephemeralDigest(.md5) }
    }

    static let fixtures = BuildProducts.packageRoot + "/Tests/Fixtures/voice"

    let directory: String
    /// The shared secret: auth_ephemeral's, and the HS256 key in Bearer mode.
    let secret: String
    let authentication: Authentication
    let minExpires: Int
    let maxExpires: Int
    /// Flow-Timer in a 200 to an outbound REGISTER (0: none).
    let flowTimer: Int
    let host = "127.0.0.1"
    /// The registrar's port, for UDP and TCP alike.
    let port: UInt16
    /// kamailio's ctl socket (kamcmd -s unix:PATH).
    let controlSocket: String

    var registrar: (host: String, udpPort: Int, tcpPort: Int) { (self.host, Int(self.port), Int(self.port)) }
    /// The realm of the challenges and the domain of every AoR (the To domain the clients use).
    var domain: String { self.host }

    private let children: FixtureChildren
    private let registrarRuns = Mutex<(current: FixtureProcess?, all: [FixtureProcess])>((nil, []))
    private let agentCount = Atomic<Int>(0)

    init(
        authentication: Authentication = .ephemeralDigest,
        minExpires: Int = 60,
        maxExpires: Int = 3600,
        flowTimer: Int = 0
    ) async throws {
        let directory = try makeTemporaryFolder("attendant-voice")
        let children = FixtureChildren(directory: directory)
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try FileManager.default.createDirectory(atPath: directory + "/kamailio", withIntermediateDirectories: true)

        // A port another process takes between the pick and kamailio's bind makes kamailio exit: pick again.
        var started: (port: UInt16, process: FixtureProcess)?
        var failures: [String] = []
        while started == nil && failures.count < 5 {
            let port = try LoopbackPort.pick()
            do {
                let process = try await Self.launchRegistrar(
                    port: port, secret: secret, authentication: authentication, minExpires: minExpires,
                    maxExpires: maxExpires, flowTimer: flowTimer, directory: directory
                )
                children.add(process, stop: Self.stopRegistrarProcess)
                started = (port, process)
            } catch let error as FixtureError where error.description.contains("Address already in use") {
                failures.append(error.description)
            }
        }
        guard let started else {
            children.stop()
            throw FixtureError("kamailio could not bind a port five times:\n" + failures.joined(separator: "\n"))
        }
        self.directory = directory
        self.children = children
        self.secret = secret
        self.authentication = authentication
        self.minExpires = minExpires
        self.maxExpires = maxExpires
        self.flowTimer = flowTimer
        self.controlSocket = directory + "/kamailio/ctl"
        self.port = started.port
        self.registrarRuns.withLock { $0 = (started.process, [started.process]) }
    }

    // MARK: The registrar

    private static func launchRegistrar(
        port: UInt16, secret: String, authentication: Authentication, minExpires: Int, maxExpires: Int, flowTimer: Int,
        directory: String
    ) async throws -> FixtureProcess {
        let runtime = directory + "/kamailio"
        let control = runtime + "/ctl"
        var arguments = [
            "-f", Self.fixtures + "/kamailio.cfg", "-DD", "-E", "-Y", runtime, "-w", runtime, "-m", "32", "-M", "4",
            "-l", "udp:127.0.0.1:\(port)", "-l", "tcp:127.0.0.1:\(port)",
            "-A", "SECRET=\"\(secret)\"", "-A", "CTL=\"unix:\(control)\"",
            "-A", "MIN_EXPIRES=\(minExpires)", "-A", "MAX_EXPIRES=\(maxExpires)", "-A", "FLOW_TIMER=\(flowTimer)",
        ]
        var environment = ProcessInfo.processInfo.environment
        // app_python3 embeds Debian's Python: keep another Python's settings (a pyenv's) out of it.
        for key in ["PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONUSERBASE"] { environment[key] = nil }
        switch authentication {
        case .ephemeralDigest(let algorithm):
            if algorithm != .md5 { arguments += ["-A", "DIGEST_ALGORITHM=\"\(algorithm.rawValue)\""] }
        case .bearer:
            arguments += ["-A", "WITH_BEARER", "-A", "BEARER=\"\(Self.fixtures)/bearer.py\""]
            environment["ATTENDANT_BEARER_SECRET"] = secret
        }
        // Through a shell that waits for it: kamailio closes every inherited descriptor as it starts, among them
        // the socket through which Foundation's Process learns that a child ended; Process then blocks its one
        // watcher thread in waitpid() for kamailio, and no other child's end (kamcmd's, sipp's, ...) is seen
        // until kamailio exits. The shell keeps that socket open and passes SIGTERM on.
        let wrapper = """
            kamailio "$@" & child=$!
            trap 'kill -TERM $child 2>/dev/null' TERM INT
            status=0
            while kill -0 $child 2>/dev/null; do wait $child; status=$?; done
            exit $status
            """
        let process = try FixtureProcess("kamailio", "/bin/sh", ["-c", wrapper, "kamailio"] + arguments, environment: environment)
        do {
            try await eventually("kamailio to answer on its ctl socket", within: 30) {
                guard process.isRunning else {
                    _ = await process.waitForExit(within: 5)
                    throw FixtureError("kamailio did not start: \(process.report)")
                }
                guard FileManager.default.fileExists(atPath: control) else { return false }
                let answer = try await runTool("kamcmd", ["-s", "unix:" + control, "core.version"], environment: environment, within: 10)
                return answer.status == 0 && answer.stdout.contains("kamailio")
            }
        } catch {
            Self.stopRegistrarProcess(process)
            throw error
        }
        return process
    }

    /// SIGTERM to the shell, which passes it to kamailio's main process (it stops its workers), bounded;
    /// SIGKILL to the whole tree if it hangs.
    private static let stopRegistrarProcess: @Sendable (FixtureProcess) -> Void = { process in
        let workers = descendantProcesses(of: process.pid)
        process.terminate(within: 10)
        for worker in descendantProcesses(of: process.pid) + workers { kill(worker, SIGKILL) }
    }

    var registrarRunning: Bool { self.registrarRuns.withLock { $0.current?.isRunning ?? false } }

    /// Stops kamailio (its contacts are lost: the location table is in memory).
    func stopRegistrar() async {
        guard let process = self.registrarRuns.withLock({ runs -> FixtureProcess? in
            let current = runs.current
            runs.current = nil
            return current
        }) else { return }
        Self.stopRegistrarProcess(process)
        _ = await process.waitForExit(within: 5)
        try? FileManager.default.removeItem(atPath: self.controlSocket)
    }

    /// Starts kamailio again on the same port, with the same secret and settings.
    func startRegistrar() async throws {
        guard !self.registrarRunning else { return }
        let process = try await Self.launchRegistrar(
            port: self.port, secret: self.secret, authentication: self.authentication, minExpires: self.minExpires,
            maxExpires: self.maxExpires, flowTimer: self.flowTimer, directory: self.directory
        )
        self.children.add(process, stop: Self.stopRegistrarProcess)
        self.registrarRuns.withLock {
            $0.current = process
            $0.all.append(process)
        }
    }

    func restartRegistrar() async throws {
        await self.stopRegistrar()
        try await self.startRegistrar()
    }

    /// How many times kamailio was started (1 before any restart).
    var registrarStarts: Int { self.registrarRuns.withLock { $0.all.count } }

    /// kamailio's stderr, every run, oldest first.
    var registrarLog: String {
        self.registrarRuns.withLock { $0.all }.enumerated().map { "--- kamailio run \($0.offset + 1):\n" + $0.element.stderr }
            .joined(separator: "\n")
    }

    /// What the cfg logged with "attendant-trace:" (every request it received, its refusals, and the replies
    /// to relayed INVITEs), oldest first.
    var registrarTrace: [String] {
        self.registrarLog.split(separator: "\n").compactMap { line in
            line.range(of: "attendant-trace: ").map { String(line[$0.upperBound...]) }
        }
    }

    /// `kamcmd -s unix:<ctl> ARGUMENTS`; throws with kamailio's log if it fails.
    func kamcmd(_ arguments: String...) async throws -> String {
        let result = try await runTool("kamcmd", ["-s", "unix:" + self.controlSocket] + arguments, environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else {
            throw FixtureError("kamcmd \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stdout)\(result.stderr)\n\(self.registrarReport)")
        }
        return result.stdout
    }

    /// The contacts in kamailio's location table (of `user`, or all).
    func registeredContacts(of user: String? = nil) async throws -> [RegisteredContact] {
        let contacts = RegisteredContact.parse(ulDump: try await self.kamcmd("ul.dump"))
        return user.map { user in contacts.filter { $0.aor == user } } ?? contacts
    }

    /// Waits (bounded) until `user`'s contacts satisfy `condition`; returns them.
    @discardableResult
    func waitForContacts(
        of user: String, _ what: String = "the expected contacts", within seconds: Double = 20,
        _ condition: @escaping ([RegisteredContact]) -> Bool
    ) async throws -> [RegisteredContact] {
        var contacts: [RegisteredContact] = []
        do {
            try await eventually("\(user): \(what)", within: seconds) {
                contacts = try await self.registeredContacts(of: user)
                return condition(contacts)
            }
        } catch let error as FixtureError {
            throw FixtureError("\(error); contacts now: \(contacts)\n\(self.registrarReport)")
        }
        return contacts
    }

    /// What a failure message says about the registrar: its state and the end of its log.
    var registrarReport: String {
        let log = self.registrarLog.split(separator: "\n", omittingEmptySubsequences: false).suffix(60).joined(separator: "\n")
        return "kamailio on 127.0.0.1:\(self.port) is \(self.registrarRunning ? "running" : "stopped"); its log ends:\n\(log)"
    }

    // MARK: Addresses and credentials

    /// `sip:user@127.0.0.1:PORT` (`;transport=tcp` for TCP): what a caller dials, and where a client
    /// registers.
    func uri(_ user: String, transport: SIPTransport = .udp) -> String {
        "sip:\(user)@\(self.host):\(self.port)" + (transport == .tcp ? ";transport=tcp" : "")
    }

    /// The registrar's URI (a REGISTER's Request-URI, an outbound proxy).
    func registrarURI(transport: SIPTransport = .udp) -> String {
        "sip:\(self.host):\(self.port)" + (transport == .tcp ? ";transport=tcp" : "")
    }

    /// Credentials for `user` that expire `validFor` seconds after `now` (negative: already expired).
    func ephemeralCredentials(for user: String, validFor seconds: Int = 3600, now: Date = Date()) -> EphemeralCredentials {
        EphemeralCredentials(user: user, expiry: Int(now.timeIntervalSince1970) + seconds, secret: self.secret)
    }

    /// An HS256 JWT for `user` signed with `secret` (or `key`): `{"sub": user, "iat": now, "exp": now +
    /// lifetime}` unless `payload` (JSON text) is given.
    func bearerToken(for user: String, lifetime: Int = 3600, now: Date = Date(), payload: String? = nil, key: String? = nil) -> String {
        let issued = Int(now.timeIntervalSince1970)
        return Self.jwt(payload: payload ?? "{\"sub\":\"\(user)\",\"iat\":\(issued),\"exp\":\(issued + lifetime)}", key: key ?? self.secret)
    }

    static func jwt(payload: String, key: String) -> String {
        let signed = Digests.base64URL(Array("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".utf8)) + "." + Digests.base64URL(Array(payload.utf8))
        return signed + "." + Digests.base64URL(Digests.hmacSHA256(key: Array(key.utf8), message: Array(signed.utf8)))
    }

    // MARK: baresip

    /// A scratch folder for the next baresip.
    private func agentDirectory(_ user: String) -> String {
        self.directory + "/baresip-\(self.agentCount.add(1, ordering: .relaxed).newValue)-\(user)"
    }

    /// Starts baresip as `caller` (a From of `"displayName" <sip:caller@127.0.0.1>`, never registering) and
    /// dials `callee` at the registrar over `transport`.
    func call(
        from caller: String = "caller", displayName: String? = "Test Caller", to callee: String, transport: SIPTransport = .udp
    ) async throws -> CallAttempt {
        try await self.call(from: caller, displayName: displayName, dialling: self.uri(callee, transport: transport))
    }

    /// Starts baresip as `caller` and dials `target` (any SIP URI).
    func call(from caller: String = "caller", displayName: String? = "Test Caller", dialling target: String) async throws -> CallAttempt {
        let name = displayName.map { "\"\($0)\" " } ?? ""
        let agent = try await Baresip(
            directory: self.agentDirectory(caller), user: caller, account: "\(name)<sip:\(caller)@\(self.host)>;regint=0",
            children: self.children
        )
        let attempt = CallAttempt(agent: agent, target: target, peers: self)
        _ = try await agent.command("dial", target)
        return attempt
    }

    /// Starts baresip as a phone that registers `user` with `credentials` over `transport` (RFC 5626
    /// outbound over TCP when `outbound`), answering nothing by itself (incoming calls ring).
    func phone(
        _ user: String, credentials: EphemeralCredentials, transport: SIPTransport = .udp, outbound: Bool = false,
        expires: Int = 600, displayName: String? = nil
    ) async throws -> Baresip {
        let name = displayName.map { "\"\($0)\" " } ?? ""
        var account = "\(name)<\(self.uri(user, transport: outbound ? .tcp : transport))>;auth_user=\(credentials.username)"
            + ";auth_pass=\(credentials.password);regint=\(expires)"
        if outbound { account += ";sipnat=outbound;outbound=\"\(self.registrarURI(transport: .tcp))\"" }
        return try await Baresip(directory: self.agentDirectory(user), user: user, account: account, children: self.children)
    }

    // MARK: Teardown

    /// Stops every part and removes the scratch folder.
    func stop() { self.children.stop() }

    deinit { self.stop() }
}

/// baresip's ctrl_tcp connection: netstring-framed JSON both ways.
final class BaresipControl: Sendable {
    private let fd: Int32
    private let state = Locked<(pending: [UInt8], messages: [JSONValue], closed: Bool)>(([], [], false))

    init(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw FixtureError("cannot connect to baresip's ctrl_tcp on 127.0.0.1:\(port): \(reason)")
        }
        self.fd = fd
        let state = self.state
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                state.withLock { state in
                    state.pending += buffer[0..<count]
                    // "<length>:<json>,"
                    while let colon = state.pending.firstIndex(of: UInt8(ascii: ":")),
                        let length = Int(String(decoding: state.pending[..<colon], as: UTF8.self)),
                        state.pending.count >= colon + 1 + length + 1
                    {
                        let body = Data(state.pending[(colon + 1)..<(colon + 1 + length)])
                        state.pending.removeFirst(colon + 1 + length + 1)
                        if let json = try? JSONDecoder().decode(JSONValue.self, from: body) { state.messages.append(json) }
                    }
                }
            }
            state.withLock { $0.closed = true }
        }
    }

    var messages: [JSONValue] { self.state.withLock { $0.messages } }
    var closed: Bool { self.state.withLock { $0.closed } }

    func send(_ command: String, _ params: String?, token: String) throws {
        struct Command: Encodable {
            let command: String
            let params: String?
            let token: String
        }
        let body = try JSONEncoder().encode(Command(command: command, params: params, token: token))
        let frame = Array("\(body.count):".utf8) + Array(body) + Array(",".utf8)
        let sent = frame.withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == frame.count else { throw FixtureError("cannot send to baresip's ctrl_tcp: \(String(cString: strerror(errno)))") }
    }

    deinit {
        shutdown(self.fd, Int32(SHUT_RDWR))
        close(self.fd)
    }
}

/// One baresip process with one account, driven over ctrl_tcp, its SIP trace on stdout.
final class Baresip {
    let user: String
    let directory: String
    let sipPort: UInt16
    let controlPort: UInt16
    let process: FixtureProcess
    private let control: BaresipControl
    private let tokens = Atomic<Int>(0)

    init(directory: String, user: String, account: String, children: FixtureChildren) async throws {
        self.user = user
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (account + "\n").write(toFile: directory + "/accounts", atomically: true, encoding: .utf8)
        let template = try String(contentsOfFile: VoicePeers.fixtures + "/baresip-config", encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory
        var started: (sipPort: UInt16, controlPort: UInt16, process: FixtureProcess, control: BaresipControl)?
        var failures: [String] = []
        while started == nil && failures.count < 5 {
            let sipPort = try LoopbackPort.pick(andNextTCP: true)
            let controlPort = try LoopbackPort.pickTCP(avoiding: [sipPort, sipPort + 1])
            try template.replacingOccurrences(of: "SIP_PORT", with: "\(sipPort)").replacingOccurrences(of: "CTRL_PORT", with: "\(controlPort)")
                .write(toFile: directory + "/config", atomically: true, encoding: .utf8)
            let process = try FixtureProcess("baresip (\(user))", "baresip", ["-s", "-f", directory], environment: environment)
            children.add(process) { $0.terminate(within: 3) }
            do {
                try await eventually("baresip (\(user)) to start", within: 30) {
                    guard process.isRunning else { throw FixtureError("baresip (\(user)) did not start: \(Self.report(process))") }
                    if process.stdout.contains("Address already in use") {
                        throw FixtureError("baresip (\(user)): Address already in use")
                    }
                    return process.stdout.contains("baresip is ready.")
                }
                started = (sipPort, controlPort, process, try BaresipControl(port: controlPort))
            } catch let error as FixtureError where error.description.contains("Address already in use") {
                failures.append(Self.report(process))
                process.terminate(within: 3)
            }
        }
        guard let started else {
            throw FixtureError("baresip (\(user)) could not bind its ports five times:\n" + failures.joined(separator: "\n"))
        }
        self.sipPort = started.sipPort
        self.controlPort = started.controlPort
        self.process = started.process
        self.control = started.control
    }

    private static func report(_ process: FixtureProcess) -> String {
        let status = process.isRunning ? "running" : "exited with status \(process.process.terminationStatus)"
        let output = process.stdout.split(separator: "\n", omittingEmptySubsequences: false).suffix(80).joined(separator: "\n")
        return "\(process.name) (pid \(process.pid), \(status)); its output ends:\n\(output)\(process.stderr.isEmpty ? "" : "\nstderr:\n" + process.stderr)"
    }

    /// What a failure message says about this baresip.
    var report: String { Self.report(self.process) }

    /// Runs a ctrl_tcp command and waits (bounded) for its answer; throws if baresip says it failed.
    @discardableResult
    func command(_ name: String, _ params: String? = nil, within seconds: Double = 10) async throws -> JSONValue {
        let token = "t\(self.tokens.add(1, ordering: .relaxed).newValue)"
        try self.control.send(name, params, token: token)
        var answer: JSONValue?
        do {
            try await eventually("baresip (\(self.user)) to answer \(name)", within: seconds) {
                answer = self.control.messages.first { $0["response"]?.bool == true && $0["token"]?.string == token }
                return answer != nil
            }
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
        guard answer?["ok"]?.bool == true else {
            throw FixtureError("baresip (\(self.user)) refused \(name) \(params ?? ""): \(answer?.description ?? "")\n\(self.report)")
        }
        return answer!
    }

    /// Every ctrl_tcp event since the connection ({"event":true,"class":...,"type":...,"param":...}).
    var events: [JSONValue] { self.control.messages.filter { $0["event"]?.bool == true } }

    /// Waits (bounded) for an event of `type` (e.g. "CALL_CLOSED") that satisfies `condition`.
    @discardableResult
    func waitForEvent(_ type: String, within seconds: Double = 30, where condition: @escaping (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
        var found: JSONValue?
        do {
            try await eventually("baresip (\(self.user)) to report \(type)", within: seconds) {
                found = self.events.first { $0["type"]?.string == type && condition($0) }
                return found != nil
            }
        } catch {
            throw FixtureError("\(error); events: \(self.events)\n\(self.report)")
        }
        return found!
    }

    /// Every SIP message baresip sent or received, in order (from its `-s` trace).
    var sipTrace: [TracedSIPMessage] {
        let ours = "127.0.0.1:\(self.sipPort)"
        return self.process.stdout.components(separatedBy: "\u{1B}[36;1m#\n").dropFirst().compactMap { chunk in
            guard let end = chunk.range(of: "\u{1B}[;m"), let newline = chunk.firstIndex(of: "\n"), newline < end.lowerBound
            else { return nil }
            // "UDP 127.0.0.1:5060 -> 127.0.0.1:5070"
            let route = chunk[..<newline].split(separator: " ")
            guard let message = SIPMessage(String(chunk[chunk.index(after: newline)..<end.lowerBound])) else { return nil }
            // Our requests and the responses to them carry our address in the top Via.
            let viaIsOurs = message.topViaSentBy == ours
            let sent = message.isRequest ? viaIsOurs : !viaIsOurs
            return TracedSIPMessage(
                direction: sent ? .sent : .received, transport: route.first.map(String.init) ?? "",
                source: route.count > 1 ? String(route[1]) : "", destination: route.count > 3 ? String(route[3]) : "", message: message
            )
        }
    }

    /// The SIP messages baresip received.
    var received: [SIPMessage] { self.sipTrace.filter { $0.direction == .received }.map(\.message) }
    /// The SIP messages baresip sent.
    var sent: [SIPMessage] { self.sipTrace.filter { $0.direction == .sent }.map(\.message) }

    /// Waits (bounded) for the final response to its REGISTER (not a challenge), the first one after
    /// `skipping` such responses.
    @discardableResult
    func waitForRegistration(skipping: Int = 0, within seconds: Double = 20) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("baresip (\(self.user)) to get an answer to its REGISTER", within: seconds) {
                found = self.received.filter {
                    $0.cseqMethod == "REGISTER" && ($0.status ?? 0) >= 200 && $0.status != 401 && $0.status != 407
                }.dropFirst(skipping).first
                return found != nil
            }
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
        return found!
    }

    func stop() { self.process.terminate(within: 3) }
}

/// One call placed by baresip through the registrar.
final class CallAttempt {
    let agent: Baresip
    /// The URI dialled.
    let target: String
    private let peers: VoicePeers

    init(agent: Baresip, target: String, peers: VoicePeers) {
        self.agent = agent
        self.target = target
        self.peers = peers
    }

    /// The INVITEs baresip sent (the first, retransmissions, and those after a redirect).
    var invites: [SIPMessage] { self.agent.sent.filter { $0.method == "INVITE" } }
    /// The responses baresip received to its INVITEs, in order (retransmissions included).
    var responses: [SIPMessage] { self.agent.received.filter { $0.cseqMethod == "INVITE" } }
    /// The provisional response codes received (100 from kamailio, 180 from the callee, ...), in order.
    var provisionalStatuses: [Int] { self.responses.compactMap(\.status).filter { $0 < 200 } }
    /// The Request-URIs baresip sent INVITEs to after a 3xx (it follows redirects itself).
    var redirectedTo: [String] {
        var seen: [String] = []
        for uri in self.invites.compactMap(\.requestURI) where !seen.contains(uri) { seen.append(uri) }
        return Array(seen.dropFirst())
    }

    /// What a failure message says about the call: baresip's output and the registrar's trace.
    var report: String {
        "call to \(self.target):\nbaresip events: \(self.agent.events)\n\(self.agent.report)\nkamailio trace:\n"
            + self.peers.registrarTrace.suffix(40).joined(separator: "\n")
    }

    /// Waits (bounded) for a provisional response with `status` (180 by default).
    @discardableResult
    func waitForProgress(_ status: Int = 180, within seconds: Double = 20) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("a \(status) to the INVITE to \(self.target)", within: seconds) {
                found = self.responses.first { $0.status == status }
                return found != nil
            }
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
        return found!
    }

    /// Waits (bounded) for the first final response (≥ 200) to the first INVITE: 603 for a decline, 302 for
    /// a redirect (with its Contact), 480 from kamailio for a user not registered, 487 after a CANCEL.
    func waitForFinalResponse(within seconds: Double = 30) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("a final response to the INVITE to \(self.target)", within: seconds) {
                let first = self.invites.first?.header("CSeq")
                found = self.responses.first { ($0.status ?? 0) >= 200 && $0.header("CSeq") == first }
                return found != nil
            }
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
        return found!
    }

    /// Waits (bounded) for baresip to close the call; its reason ("603 Decline", "Connection reset by user",
    /// ...).
    @discardableResult
    func waitForClosed(within seconds: Double = 30) async throws -> String {
        do {
            return try await self.agent.waitForEvent("CALL_CLOSED", within: seconds) { $0["direction"]?.string == "outgoing" }["param"]?.string ?? ""
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
    }

    /// The caller hangs up: a CANCEL before an answer, a BYE after.
    func hangUp() async throws {
        try await self.agent.command("hangup")
    }

    func stop() { self.agent.stop() }
}

/// sipp (Debian's sip-tester) as an independent SIP client: a REGISTER exchange and a scripted callee.
enum SIPp {
    enum Credentials: Sendable {
        case none
        /// Answers a 401 Digest challenge (MD5) with these.
        case digest(username: String, password: String)
        /// Sends this header line in the REGISTER (e.g. "Authorization: Bearer ...").
        case header(String)
    }

    /// What sipp sent and received, and how it ended.
    struct Exchange: Sendable {
        /// sipp's exit status (0: the scenario ran to its end); nil if it was killed.
        let status: Int32?
        let messages: [TracedSIPMessage]
        let output: String

        var responses: [SIPMessage] { self.messages.filter { $0.direction == .received && !$0.message.isRequest }.map(\.message) }
        var requests: [SIPMessage] { self.messages.filter { $0.direction == .received && $0.message.isRequest }.map(\.message) }
        var statuses: [Int] { self.responses.compactMap(\.status) }
        var finalResponse: SIPMessage? { self.responses.last }
    }

    /// Parses a `-message_file`.
    static func messages(in file: String) -> [TracedSIPMessage] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return text.components(separatedBy: "----------------------------------------------- ").dropFirst().compactMap { entry in
            // "<date>\n<UDP|TCP> message sent (N bytes):\n\n<message>\n"
            let lines = entry.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
            guard lines.count == 4, let message = SIPMessage(String(lines[3]).trimmingCharacters(in: .newlines) + "\r\n") else { return nil }
            let kind = lines[1]
            return TracedSIPMessage(
                direction: kind.contains("received") ? .received : .sent, transport: kind.split(separator: " ").first.map(String.init) ?? "",
                source: "", destination: "", message: message
            )
        }
    }

    static let finalCodes = [200, 400, 401, 403, 404, 407, 420, 423, 439, 480, 500, 503]

    /// One REGISTER (and, for Digest credentials, its answer to the 401) for `user` from 127.0.0.1:`localPort`
    /// (a free port if nil); returns what came back. `contactParameters` are appended to the Contact (e.g.
    /// `;+sip.instance="<urn:uuid:...>";reg-id=1`), `headers` added as they are.
    static func register(
        with peers: VoicePeers, user: String, credentials: Credentials, expires: Int = 600, transport: SIPTransport = .udp,
        localPort: UInt16? = nil, contactParameters: String = "", headers: [String] = [], within seconds: Double = 20
    ) async throws -> Exchange {
        let port = try localPort ?? LoopbackPort.pick()
        let stamp = UUID().uuidString.prefix(8)
        let scenario = peers.directory + "/sipp-register-\(user)-\(stamp).xml"
        let messages = peers.directory + "/sipp-register-\(user)-\(stamp).messages"
        var extra = headers
        var arguments: [String] = []
        switch credentials {
        case .none: break
        case .header(let line): extra.append(line)
        case .digest(let username, let password): arguments += ["-au", username, "-ap", password]
        }
        func request(_ cseq: Int, authenticate: Bool) -> String {
            """
             <send retrans="500">
              <![CDATA[
            REGISTER sip:[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch];rport
            From: <sip:\(user)@\(peers.domain)>;tag=[pid]SIPpTag00[call_number]
            To: <sip:\(user)@\(peers.domain)>
            Call-ID: [call_id]
            CSeq: \(cseq) REGISTER
            Contact: <sip:\(user)@[local_ip]:[local_port];transport=[transport]>\(contactParameters)
            Expires: \(expires)
            Max-Forwards: 70
            User-Agent: sipp (attendant voice fixture)
            \((extra + (authenticate ? ["[authentication]"] : [])).map { $0 + "\n" }.joined())Content-Length: 0

              ]]>
             </send>

            """
        }
        let digest: Bool = if case .digest = credentials { true } else { false }
        func answers(challenge: Bool) -> String {
            Self.finalCodes.map { code in
                if code == 200 { return "" }
                if code == 401 && challenge { return " <recv response=\"401\" auth=\"true\" optional=\"true\" next=\"authenticate\"/>\n" }
                return " <recv response=\"\(code)\" optional=\"true\" next=\"done\"/>\n"
            }.joined() + " <recv response=\"200\" next=\"done\"/>\n"
        }
        let xml = """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <scenario name="register">
            \(request(1, authenticate: false))\(answers(challenge: digest)) <label id="authenticate"/>
            \(digest ? request(2, authenticate: true) + answers(challenge: false) : "") <label id="done"/>
            </scenario>

            """
        try xml.write(toFile: scenario, atomically: true, encoding: .utf8)
        arguments = [
            "\(peers.host):\(peers.port)", "-sf", scenario, "-m", "1", "-i", "127.0.0.1", "-p", "\(port)",
            "-t", transport == .tcp ? "t1" : "u1", "-trace_msg", "-message_file", messages, "-nostdin",
            "-timeout", "\(Int(seconds))s", "-timeout_error",
        ] + arguments
        let sipp = try FixtureProcess("sipp (register \(user))", "sipp", arguments, environment: ProcessInfo.processInfo.environment)
        let status = await sipp.waitForExit(within: seconds + 5)
        return Exchange(status: status, messages: Self.messages(in: messages), output: sipp.stderr)
    }

    /// How a sipp callee answers the one INVITE it waits for.
    enum CalleeBehaviour: Sendable {
        /// 180 Ringing (when `ringFirst`), then after `after` ms this final response (≥ 300), with `contact`
        /// as its Contact if given (a 302's target); then it waits for the ACK.
        case respond(status: Int, reason: String, ringFirst: Bool = true, after: Int = 300, contact: String? = nil)
        /// 180 Ringing, then it waits for the CANCEL: 200 to it, 487 to the INVITE, then the ACK. (For an INVITE
        /// with two Vias: a UA's through kamailio.)
        case ringUntilCancelled
    }

    /// Registers `user` with sipp over UDP (see `register`), then runs a sipp callee on the same port that
    /// answers one INVITE as `behaviour` says. The registration's exchange is in `registration`.
    static func callee(
        with peers: VoicePeers, user: String, credentials: Credentials, behaviour: CalleeBehaviour, within seconds: Double = 60
    ) async throws -> SIPpCallee {
        let port = try LoopbackPort.pick()
        let registration = try await Self.register(with: peers, user: user, credentials: credentials, localPort: port)
        guard registration.finalResponse?.status == 200 else {
            throw FixtureError("sipp could not register \(user): \(registration.statuses)\n\(registration.output)\n\(peers.registrarReport)")
        }
        let stamp = UUID().uuidString.prefix(8)
        let scenario = peers.directory + "/sipp-callee-\(user)-\(stamp).xml"
        let messages = peers.directory + "/sipp-callee-\(user)-\(stamp).messages"
        func response(
            _ status: Int, _ reason: String, tag: Bool = true, via: String = "[last_Via:]", cseq: String = "[last_CSeq:]", extra: [String] = []
        ) -> String {
            """
             <send>
              <![CDATA[
            SIP/2.0 \(status) \(reason)
            \(via)
            [last_From:]
            [last_To:]\(tag ? ";tag=[pid]SIPpTag01[call_number]" : "")
            [last_Call-ID:]
            \(cseq)
            \(extra.map { $0 + "\n" }.joined())Content-Length: 0

              ]]>
             </send>

            """
        }
        let ringing = response(180, "Ringing", extra: ["[last_Record-Route:]", "Contact: <sip:\(user)@[local_ip]:[local_port]>"])
        var steps = ""
        switch behaviour {
        case .respond(let status, let reason, let ringFirst, let after, let contact):
            steps += " <recv request=\"INVITE\"/>\n"
            precondition(status >= 300, "a sipp callee sends no SDP: only final responses ≥ 300")
            if ringFirst { steps += ringing }
            steps += " <pause milliseconds=\"\(after)\"/>\n"
            steps += response(status, reason, extra: contact.map { ["Contact: <\($0)>"] } ?? [])
            steps += " <recv request=\"ACK\"/>\n"
        case .ringUntilCancelled:
            // The INVITE's two Vias (kamailio's, the caller's), kept for the 487 sent after the CANCEL, when
            // sipp's [last_Via:] is the CANCEL's (kamailio's only). sipp refuses variables set but not used.
            steps += """
                 <recv request="INVITE">
                  <action>
                   <ereg regexp=".*" search_in="hdr" header="Via:" occurrence="1" assign_to="via1"/>
                   <ereg regexp=".*" search_in="hdr" header="Via:" occurrence="2" assign_to="via2"/>
                  </action>
                 </recv>

                """
            steps += ringing
            steps += " <recv request=\"CANCEL\"/>\n"
            steps += response(200, "OK", tag: false)
            steps += response(487, "Request Terminated", via: "Via: [$via1]\nVia: [$via2]", cseq: "CSeq: [cseq] INVITE")
            steps += " <recv request=\"ACK\"/>\n"
        }
        try """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <scenario name="callee">
            \(steps)</scenario>

            """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let process = try FixtureProcess(
            "sipp (callee \(user))", "sipp",
            [
                "-sf", scenario, "-m", "1", "-i", "127.0.0.1", "-p", "\(port)", "-t", "u1", "-trace_msg", "-message_file", messages,
                "-nostdin", "-timeout", "\(Int(seconds))s", "-timeout_error",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        return SIPpCallee(process: process, messageFile: messages, registration: registration, port: port)
    }
}

/// A running sipp callee (SIPp.callee).
final class SIPpCallee {
    let process: FixtureProcess
    let messageFile: String
    let registration: SIPp.Exchange
    let port: UInt16

    init(process: FixtureProcess, messageFile: String, registration: SIPp.Exchange, port: UInt16) {
        self.process = process
        self.messageFile = messageFile
        self.registration = registration
        self.port = port
    }

    var messages: [TracedSIPMessage] { SIPp.messages(in: self.messageFile) }
    /// The requests it received (INVITE, CANCEL, ACK).
    var requests: [SIPMessage] { self.messages.filter { $0.direction == .received && $0.message.isRequest }.map(\.message) }

    /// Waits (bounded) until it received a `method` request.
    @discardableResult
    func waitForRequest(_ method: String, within seconds: Double = 20) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("the sipp callee to receive \(method)", within: seconds) {
                found = self.requests.first { $0.method == method }
                if found == nil && !self.process.isRunning { throw FixtureError("the sipp callee ended without a \(method)") }
                return found != nil
            }
        } catch {
            throw FixtureError("\(error); it received \(self.requests.compactMap(\.method)); sipp: \(self.process.report)")
        }
        return found!
    }

    /// Waits (bounded) for sipp to finish its scenario; its exit status (0: ran to the end).
    func waitForEnd(within seconds: Double = 30) async -> Int32? { await self.process.waitForExit(within: seconds) }

    deinit { self.process.terminate(within: 2) }
}
