import Foundation
import Glibc
import Synchronization
package import TestSupport

// Facts measured with Debian 12's baresip 1.0.0:
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

/// baresip's ctrl_tcp connection: netstring-framed JSON both ways.
package final class BaresipControl: Sendable {
    private let fd: Int32
    private let state = Locked<(pending: [UInt8], messages: [JSONValue], closed: Bool)>(([], [], false))

    package init(port: UInt16) throws {
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

    package var messages: [JSONValue] { self.state.withLock { $0.messages } }
    package var closed: Bool { self.state.withLock { $0.closed } }

    package func send(_ command: String, _ params: String?, token: String) throws {
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
package final class Baresip {
    package let user: String
    package let directory: String
    package let sipPort: UInt16
    package let controlPort: UInt16
    package let process: FixtureProcess
    private let control: BaresipControl
    private let tokens = Atomic<Int>(0)

    package init(directory: String, user: String, account: String, children: FixtureChildren) async throws {
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
                try await eventually("baresip (\(user)) to start") {
                    guard process.isRunning else { throw FixtureError("baresip (\(user)) did not start: \(Self.report(process))") }
                    if process.stdout.contains("Address already in use") {
                        throw FixtureError("baresip (\(user)): Address already in use")
                    }
                    return process.stdout.contains("baresip is ready.")
                }
                started = (sipPort, controlPort, process, try BaresipControl(port: controlPort))
            } catch let error as FixtureError where error.description.contains("Address already in use") {
                failures.append(Self.report(process))
                await process.terminate(within: 3)
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
        let status = process.process.ended.map { "ended: \($0)" } ?? "running"
        let output = process.stdout.split(separator: "\n", omittingEmptySubsequences: false).suffix(80).joined(separator: "\n")
        return
            "\(process.name) (pid \(process.pid), \(status)); its output ends:\n\(output)\(process.stderr.isEmpty ? "" : "\nstderr:\n" + process.stderr)"
    }

    /// What a failure message says about this baresip.
    package var report: String { Self.report(self.process) }

    /// Runs a ctrl_tcp command and waits (bounded) for its answer; throws if baresip says it failed.
    @discardableResult
    package func command(_ name: String, _ params: String? = nil, within seconds: Double = 10) async throws -> JSONValue {
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
    package var events: [JSONValue] { self.control.messages.filter { $0["event"]?.bool == true } }

    /// Waits (bounded) for an event of `type` (e.g. "CALL_CLOSED") that satisfies `condition`.
    @discardableResult
    package func waitForEvent(
        _ type: String,
        within seconds: Double = 60,
        where condition: @escaping (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
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
    package var sipTrace: [TracedSIPMessage] {
        // UDP and TCP on sipPort, TLS on the next port.
        let ours: Set = ["127.0.0.1:\(self.sipPort)", "127.0.0.1:\(self.sipPort + 1)"]
        return self.process.stdout.components(separatedBy: "\u{1B}[36;1m#\n").dropFirst().compactMap { chunk in
            guard let end = chunk.range(of: "\u{1B}[;m") else { return nil }
            // "UDP 127.0.0.1:5060 -> 127.0.0.1:5070", after any log lines of other threads that came
            // between the trace's marker and its route (aubridge's "thread start" does, as a call is answered).
            let lines = chunk[..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            guard let routeLine = lines.firstIndex(where: { $0.split(separator: " ").count == 4 && $0.contains(" -> ") })
            else { return nil }
            let route = lines[routeLine].split(separator: " ")
            guard let message = SIPMessage(lines[(routeLine + 1)...].joined(separator: "\n")) else { return nil }
            // Our requests and the responses to them carry our address in the top Via.
            let viaIsOurs = message.topViaSentBy.map(ours.contains) ?? false
            let sent = message.isRequest ? viaIsOurs : !viaIsOurs
            return TracedSIPMessage(
                direction: sent ? .sent : .received,
                transport: route.first.map(String.init) ?? "",
                source: route.count > 1 ? String(route[1]) : "",
                destination: route.count > 3 ? String(route[3]) : "",
                message: message
            )
        }
    }

    /// The SIP messages baresip received.
    package var received: [SIPMessage] { self.sipTrace.filter { $0.direction == .received }.map(\.message) }
    /// The SIP messages baresip sent.
    package var sent: [SIPMessage] { self.sipTrace.filter { $0.direction == .sent }.map(\.message) }

    /// Waits (bounded) for the final response to its REGISTER (not a challenge), the first one after
    /// `skipping` such responses.
    @discardableResult
    package func waitForRegistration(skipping: Int = 0, within seconds: Double = 60) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("baresip (\(self.user)) to get an answer to its REGISTER", within: seconds) {
                found =
                    self.received.filter {
                        $0.cseqMethod == "REGISTER" && ($0.status ?? 0) >= 200 && $0.status != 401 && $0.status != 407
                    }.dropFirst(skipping).first
                return found != nil
            }
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
        return found!
    }

    package func stop() { self.process.terminate(within: 3) }
    /// ``stop()`` from a test's body, without holding a cooperative thread while baresip ends.
    package func stop() async { await self.process.terminate(within: 3) }
}

/// One call placed by baresip through the registrar.
package final class CallAttempt {
    package let agent: Baresip
    /// The URI dialled.
    package let target: String
    private let peers: VoicePeers

    package init(agent: Baresip, target: String, peers: VoicePeers) {
        self.agent = agent
        self.target = target
        self.peers = peers
    }

    /// The INVITEs baresip sent (the first, retransmissions, and those after a redirect).
    package var invites: [SIPMessage] { self.agent.sent.filter { $0.method == "INVITE" } }
    /// The responses baresip received to its INVITEs, in order (retransmissions included).
    package var responses: [SIPMessage] { self.agent.received.filter { $0.cseqMethod == "INVITE" } }
    /// The provisional response codes received (100 from kamailio, 180 from the callee, ...), in order.
    package var provisionalStatuses: [Int] { self.responses.compactMap(\.status).filter { $0 < 200 } }
    /// The Request-URIs baresip sent INVITEs to after a 3xx (it follows redirects itself).
    package var redirectedTo: [String] {
        var seen: [String] = []
        for uri in self.invites.compactMap(\.requestURI) where !seen.contains(uri) { seen.append(uri) }
        return Array(seen.dropFirst())
    }

    /// What a failure message says about the call: baresip's output and the registrar's trace.
    package var report: String {
        "call to \(self.target):\nbaresip events: \(self.agent.events)\n\(self.agent.report)\nkamailio trace:\n"
            + self.peers.registrarTrace.suffix(40).joined(separator: "\n")
    }

    /// Waits (bounded) for a provisional response with `status` (180 by default).
    @discardableResult
    package func waitForProgress(_ status: Int = 180, within seconds: Double = 60) async throws -> SIPMessage {
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
    package func waitForFinalResponse(within seconds: Double = 60) async throws -> SIPMessage {
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
    package func waitForClosed(within seconds: Double = 60) async throws -> String {
        do {
            return try await self.agent.waitForEvent("CALL_CLOSED", within: seconds) { $0["direction"]?.string == "outgoing" }["param"]?.string ?? ""
        } catch {
            throw FixtureError("\(error)\n\(self.report)")
        }
    }

    /// The caller hangs up: a CANCEL before an answer, a BYE after.
    package func hangUp() async throws {
        try await self.agent.command("hangup")
    }

    package func stop() { self.agent.stop() }
    /// ``stop()`` from a test's body, without holding a cooperative thread.
    package func stop() async { await self.agent.stop() }
}
