package import Foundation
import Glibc
import Synchronization
package import TestSupport

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
// Facts measured with Debian 12's kamailio 5.6.3:
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
//   - The tls module (kamailio-tls-modules) with `-l tls:127.0.0.1:P`: TLS 1.2+ with the certificate and key
//     given as modparams; it answers a TLS client without asking it for a certificate, and relays an INVITE to
//     a contact registered over TLS on that contact's own TLS connection.

/// Ephemeral SIP credentials: username "<expiry-unix-time>:<user>", password base64(HMAC-SHA1(secret,
/// username)).
package struct EphemeralCredentials: Sendable, Equatable {
    package let username: String
    package let password: String

    package init(user: String, expiry: Int, secret: String) {
        self.username = "\(expiry):\(user)"
        self.password = Digests.base64(Digests.hmacSHA1(key: Array(secret.utf8), message: Array(self.username.utf8)))
    }
}

/// The voice peers: see the top of this file. Everything stops and the scratch folder goes when it is
/// released (or at `stop()`).
package final class VoicePeers {
    package enum DigestAlgorithm: String, Sendable {
        case md5 = "MD5"
        case sha256 = "SHA-256"
    }

    package enum Authentication: Sendable, Equatable {
        /// Digest (401 challenge, qop=auth) with ephemeral credentials, checked by auth_ephemeral.
        case ephemeralDigest(DigestAlgorithm)
        /// RFC 8898: `WWW-Authenticate: Bearer realm="127.0.0.1"`; HS256 JWTs signed with `secret`.
        case bearer

        package static var ephemeralDigest: Self { .ephemeralDigest(.md5) }
    }

    package static let fixtures = BuildProducts.packageRoot + "/Tests/Fixtures/voice"

    package let directory: String
    /// The shared secret: auth_ephemeral's, and the HS256 key in Bearer mode.
    package let secret: String
    package let authentication: Authentication
    package let minExpires: Int
    package let maxExpires: Int
    /// Flow-Timer in a 200 to an outbound REGISTER (0: none).
    package let flowTimer: Int
    package let host = "127.0.0.1"
    /// The registrar's port, for UDP and TCP alike.
    package let port: UInt16
    /// kamailio's ctl socket (kamcmd -s unix:PATH).
    package let controlSocket: String
    /// With `tls`: the TLS port, and the test CA that issued kamailio's certificate (for `tls-ca-file`).
    package let tls: (port: UInt16, authority: TestCertificateAuthority)?

    package var registrar: (host: String, udpPort: Int, tcpPort: Int) { (self.host, Int(self.port), Int(self.port)) }
    /// The realm of the challenges and the domain of every AoR (the To domain the clients use).
    package var domain: String { self.host }

    let children: FixtureChildren
    private let tlsIdentity: TLSIdentity?
    private let registrarRuns = Mutex<(current: FixtureProcess?, all: [FixtureProcess])>((nil, []))
    let agentCount = Atomic<Int>(0)

    package init(
        authentication: Authentication = .ephemeralDigest,
        minExpires: Int = 60,
        maxExpires: Int = 3600,
        flowTimer: Int = 0,
        tls: Bool = false
    ) async throws {
        let directory = try makeTemporaryFolder("attendant-voice")
        let children = FixtureChildren(directory: directory)
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try FileManager.default.createDirectory(atPath: directory + "/kamailio", withIntermediateDirectories: true)
        var identity: TLSIdentity?
        if tls {
            let authority = try await TestCertificateAuthority("Attendant Test Registrar CA")
            identity = TLSIdentity(port: 0, authority: authority, files: try await authority.issue("registrar", names: ["IP:127.0.0.1"]))
        }

        // A port another process takes between the pick and kamailio's bind makes kamailio exit: pick again.
        var started: (port: UInt16, tls: TLSIdentity?, process: FixtureProcess)?
        var failures: [String] = []
        while started == nil && failures.count < 5 {
            let port = try LoopbackPort.pick()
            var attempt = identity
            attempt?.port = try LoopbackPort.pickTCP(avoiding: [port])
            do {
                let process = try await Self.launchRegistrar(
                    port: port,
                    tls: attempt,
                    secret: secret,
                    authentication: authentication,
                    minExpires: minExpires,
                    maxExpires: maxExpires,
                    flowTimer: flowTimer,
                    directory: directory
                )
                children.add(process, stop: Self.stopRegistrarProcess)
                started = (port, attempt, process)
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
        self.tlsIdentity = started.tls
        self.tls = started.tls.map { ($0.port, $0.authority) }
        self.registrarRuns.withLock { $0 = (started.process, [started.process]) }
    }

    // MARK: The registrar

    /// kamailio's TLS listener: its port and the certificate the test CA issued it.
    private struct TLSIdentity {
        var port: UInt16
        let authority: TestCertificateAuthority
        let files: (certificate: String, key: String)
    }

    private static func launchRegistrar(
        port: UInt16,
        tls: TLSIdentity?,
        secret: String,
        authentication: Authentication,
        minExpires: Int,
        maxExpires: Int,
        flowTimer: Int,
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
        if let tls {
            arguments += [
                "-l", "tls:127.0.0.1:\(tls.port)", "-A", "WITH_TLS",
                "-A", "TLS_CERTIFICATE=\"\(tls.files.certificate)\"", "-A", "TLS_KEY=\"\(tls.files.key)\"",
            ]
        }
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
        let process = try fixtureDaemon("kamailio", "kamailio", arguments, environment: environment)
        // The ctl socket exists before kamailio answers on it: a kamcmd then waits without a limit of its
        // own. One that is still waiting after 5 s (a busy machine; seen once in a fresh clone's run) is
        // stopped and tried again, within the whole wait's limit.
        let lastTry = Locked("no kamcmd tried yet")
        do {
            try await eventually("kamailio to answer on its ctl socket (last kamcmd: \(lastTry.withLock { $0 }))") {
                guard process.isRunning else {
                    _ = await process.waitForExit(within: 5)
                    throw FixtureError("kamailio did not start: \(process.report)")
                }
                guard FileManager.default.fileExists(atPath: control) else { return false }
                do {
                    let answer = try await runTool("kamcmd", ["-s", "unix:" + control, "core.version"], environment: environment, within: 5)
                    lastTry.withLock { $0 = "exit \(answer.status): \(answer.stdout)\(answer.stderr)" }
                    return answer.status == 0 && answer.stdout.contains("kamailio")
                } catch {
                    lastTry.withLock { $0 = "\(error)" }
                    return false
                }
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

    package var registrarRunning: Bool { self.registrarRuns.withLock { $0.current?.isRunning ?? false } }

    /// Stops kamailio (its contacts are lost: the location table is in memory).
    package func stopRegistrar() async {
        guard
            let process = self.registrarRuns.withLock({ runs -> FixtureProcess? in
                let current = runs.current
                runs.current = nil
                return current
            })
        else { return }
        Self.stopRegistrarProcess(process)
        _ = await process.waitForExit(within: 5)
        try? FileManager.default.removeItem(atPath: self.controlSocket)
    }

    /// Starts kamailio again on the same port, with the same secret and settings.
    package func startRegistrar() async throws {
        guard !self.registrarRunning else { return }
        let process = try await Self.launchRegistrar(
            port: self.port,
            tls: self.tlsIdentity,
            secret: self.secret,
            authentication: self.authentication,
            minExpires: self.minExpires,
            maxExpires: self.maxExpires,
            flowTimer: self.flowTimer,
            directory: self.directory
        )
        self.children.add(process, stop: Self.stopRegistrarProcess)
        self.registrarRuns.withLock {
            $0.current = process
            $0.all.append(process)
        }
    }

    package func restartRegistrar() async throws {
        await self.stopRegistrar()
        try await self.startRegistrar()
    }

    /// How many times kamailio was started (1 before any restart).
    package var registrarStarts: Int { self.registrarRuns.withLock { $0.all.count } }

    /// kamailio's stderr, every run, oldest first.
    package var registrarLog: String {
        self.registrarRuns.withLock { $0.all }.enumerated().map { "--- kamailio run \($0.offset + 1):\n" + $0.element.stderr }
            .joined(separator: "\n")
    }

    /// What the cfg logged with "attendant-trace:" (every request it received, its refusals, and the replies
    /// to relayed INVITEs), oldest first.
    package var registrarTrace: [String] {
        self.registrarLog.split(separator: "\n").compactMap { line in
            line.range(of: "attendant-trace: ").map { String(line[$0.upperBound...]) }
        }
    }

    /// Waits (bounded) until the trace satisfies `condition`, and says whether it did: kamailio's log
    /// reaches this process through a pipe, which a busy machine drains a little after the SIP answer.
    @discardableResult
    package func waitForTrace(within seconds: Double = 10, _ condition: ([String]) -> Bool) async -> Bool {
        (try? await eventually("kamailio's trace", within: seconds) { condition(self.registrarTrace) }) != nil
    }

    /// `kamcmd -s unix:<ctl> ARGUMENTS`; throws with kamailio's log if it fails.
    package func kamcmd(_ arguments: String...) async throws -> String {
        let result = try await runTool("kamcmd", ["-s", "unix:" + self.controlSocket] + arguments, environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else {
            throw FixtureError(
                "kamcmd \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stdout)\(result.stderr)\n\(self.registrarReport)"
            )
        }
        return result.stdout
    }

    /// The contacts in kamailio's location table (of `user`, or all).
    package func registeredContacts(of user: String? = nil) async throws -> [RegisteredContact] {
        let contacts = RegisteredContact.parse(ulDump: try await self.kamcmd("ul.dump"))
        return user.map { user in contacts.filter { $0.aor == user } } ?? contacts
    }

    /// Waits (bounded) until `user`'s contacts satisfy `condition`; returns them.
    @discardableResult
    package func waitForContacts(
        of user: String,
        _ what: String = "the expected contacts",
        within seconds: Double = 60,
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
    package var registrarReport: String {
        let log = self.registrarLog.split(separator: "\n", omittingEmptySubsequences: false).suffix(60).joined(separator: "\n")
        return "kamailio on 127.0.0.1:\(self.port) is \(self.registrarRunning ? "running" : "stopped"); its log ends:\n\(log)"
    }

    // MARK: Addresses and credentials

    /// `sip:user@127.0.0.1:PORT` (`;transport=tcp` for TCP, the TLS port and `;transport=tls` for TLS):
    /// what a caller dials, and where a client registers.
    package func uri(_ user: String, transport: PeerTransport = .udp) -> String {
        "sip:\(user)@" + self.address(transport)
    }

    /// The registrar's URI (a REGISTER's Request-URI, an outbound proxy).
    package func registrarURI(transport: PeerTransport = .udp) -> String {
        "sip:" + self.address(transport)
    }

    private func address(_ transport: PeerTransport) -> String {
        switch transport {
        case .udp: "\(self.host):\(self.port)"
        case .tcp: "\(self.host):\(self.port);transport=tcp"
        case .tls: "\(self.host):\(self.tls?.port ?? 0);transport=tls"
        }
    }

    /// Credentials for `user` that expire `validFor` seconds after `now` (negative: already expired).
    package func ephemeralCredentials(for user: String, validFor seconds: Int = 3600, now: Date = Date()) -> EphemeralCredentials {
        EphemeralCredentials(user: user, expiry: Int(now.timeIntervalSince1970) + seconds, secret: self.secret)
    }

    /// An HS256 JWT for `user` signed with `secret` (or `key`): `{"sub": user, "iat": now, "exp": now +
    /// lifetime}` unless `payload` (JSON text) is given.
    package func bearerToken(for user: String, lifetime: Int = 3600, now: Date = Date(), payload: String? = nil, key: String? = nil) -> String {
        let issued = Int(now.timeIntervalSince1970)
        return Self.jwt(payload: payload ?? "{\"sub\":\"\(user)\",\"iat\":\(issued),\"exp\":\(issued + lifetime)}", key: key ?? self.secret)
    }

    package static func jwt(payload: String, key: String) -> String {
        let signed = Digests.base64URL(Array("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".utf8)) + "." + Digests.base64URL(Array(payload.utf8))
        return signed + "." + Digests.base64URL(Digests.hmacSHA256(key: Array(key.utf8), message: Array(signed.utf8)))
    }

    // MARK: Teardown

    /// Stops every part and removes the scratch folder.
    package func stop() { self.children.stop() }

    deinit { self.stop() }
}
