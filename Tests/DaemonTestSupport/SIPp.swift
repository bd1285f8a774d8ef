import Foundation
import Glibc
import Synchronization
package import TestSupport

// Facts measured with Debian 12's sipp 3.6.1:
//
// sipp
//   - `-trace_msg -message_file F` writes every message with a separator line, "UDP message sent (N bytes):"
//     or "... message received [N] bytes :", a blank line and the message.
//   - In client mode it matches incoming requests to its calls by Call-ID, so it cannot register and then
//     take an INVITE in one run: SIPp.callee registers with one run and answers with a second on the same
//     port (UDP only).

/// sipp (Debian's sip-tester) as an independent SIP client: a REGISTER exchange and a scripted callee.
package enum SIPp {
    package enum Credentials: Sendable {
        case none
        /// Answers a 401 Digest challenge (MD5) with these.
        case digest(username: String, password: String)
        /// Sends this header line in the REGISTER (e.g. "Authorization: Bearer ...").
        case header(String)
    }

    /// What sipp sent and received, and how it ended.
    package struct Exchange: Sendable {
        /// sipp's exit status (0: the scenario ran to its end); nil if it was killed.
        package let status: Int32?
        package let messages: [TracedSIPMessage]
        package let output: String

        package var responses: [SIPMessage] { self.messages.filter { $0.direction == .received && !$0.message.isRequest }.map(\.message) }
        package var requests: [SIPMessage] { self.messages.filter { $0.direction == .received && $0.message.isRequest }.map(\.message) }
        package var statuses: [Int] { self.responses.compactMap(\.status) }
        package var finalResponse: SIPMessage? { self.responses.last }
    }

    /// Parses a `-message_file`.
    package static func messages(in file: String) -> [TracedSIPMessage] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return text.components(separatedBy: "----------------------------------------------- ").dropFirst().compactMap { entry in
            // "<date>\n<UDP|TCP> message sent (N bytes):\n\n<message>\n"
            let lines = entry.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
            guard lines.count == 4, let message = SIPMessage(String(lines[3]).trimmingCharacters(in: .newlines) + "\r\n") else { return nil }
            let kind = lines[1]
            return TracedSIPMessage(
                direction: kind.contains("received") ? .received : .sent,
                transport: kind.split(separator: " ").first.map(String.init) ?? "",
                source: "",
                destination: "",
                message: message
            )
        }
    }

    package static let finalCodes = [200, 400, 401, 403, 404, 407, 420, 423, 439, 480, 500, 503]

    /// One REGISTER (and, for Digest credentials, its answer to the 401) for `user` from 127.0.0.1:`localPort`
    /// (a free port if nil); returns what came back. `contactParameters` are appended to the Contact (e.g.
    /// `;+sip.instance="<urn:uuid:...>";reg-id=1`), `headers` added as they are.
    package static func register(
        with peers: VoicePeers,
        user: String,
        credentials: Credentials,
        expires: Int = 600,
        transport: PeerTransport = .udp,
        localPort: UInt16? = nil,
        contactParameters: String = "",
        headers: [String] = [],
        within seconds: Double = 20
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
        arguments =
            [
                "\(peers.host):\(peers.port)", "-sf", scenario, "-m", "1", "-i", "127.0.0.1", "-p", "\(port)",
                "-t", transport == .tcp ? "t1" : "u1", "-trace_msg", "-message_file", messages, "-nostdin",
                "-timeout", "\(Int(seconds))s", "-timeout_error",
            ] + arguments
        let sipp = try FixtureProcess("sipp (register \(user))", "sipp", arguments, environment: ProcessInfo.processInfo.environment)
        let status = await sipp.waitForExit(within: seconds + 5)
        return Exchange(status: status, messages: Self.messages(in: messages), output: sipp.stderr)
    }

    /// How a sipp callee answers the one INVITE it waits for.
    package enum CalleeBehaviour: Sendable {
        /// 180 Ringing (when `ringFirst`), then after `after` ms this final response (≥ 300), with `contact`
        /// as its Contact if given (a 302's target); then it waits for the ACK.
        case respond(status: Int, reason: String, ringFirst: Bool = true, after: Int = 300, contact: String? = nil)
        /// 180 Ringing, then it waits for the CANCEL: 200 to it, 487 to the INVITE, then the ACK. (For an INVITE
        /// with two Vias: a UA's through kamailio.)
        case ringUntilCancelled
    }

    /// Registers `user` with sipp over UDP (see `register`), then runs a sipp callee on the same port that
    /// answers one INVITE as `behaviour` says. The registration's exchange is in `registration`.
    package static func callee(
        with peers: VoicePeers,
        user: String,
        credentials: Credentials,
        behaviour: CalleeBehaviour,
        within seconds: Double = 60
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
            _ status: Int,
            _ reason: String,
            tag: Bool = true,
            via: String = "[last_Via:]",
            cseq: String = "[last_CSeq:]",
            extra: [String] = []
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
            "sipp (callee \(user))",
            "sipp",
            [
                "-sf", scenario, "-m", "1", "-i", "127.0.0.1", "-p", "\(port)", "-t", "u1", "-trace_msg", "-message_file", messages,
                "-nostdin", "-timeout", "\(Int(seconds))s", "-timeout_error",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        return SIPpCallee(process: process, messageFile: messages, registration: registration, port: port)
    }
}

extension SIPp {
    /// A sipp caller over UDP that sends one INVITE for `requestURI` to `remote` (`host:port`: the
    /// registrar as a proxy, or a phone's Contact directly) with `from` (a name-addr) and `headers` added as
    /// they are, waits for the 180, then CANCELs it, the CANCEL carrying `cancelHeaders` (e.g. a Reason),
    /// takes the CANCEL's 200 and the INVITE's 487, and ACKs the 487. Returns when sipp is done.
    package static func cancelledCall(
        to remote: String,
        requestURI: String,
        from: String,
        headers: [String] = [],
        cancelHeaders: [String] = [],
        directory: String,
        within seconds: Double = 30
    ) async throws -> Exchange {
        let port = try LoopbackPort.pick()
        let stamp = UUID().uuidString.prefix(8)
        let scenario = directory + "/sipp-caller-\(stamp).xml"
        let messages = directory + "/sipp-caller-\(stamp).messages"
        // One branch for the INVITE, its CANCEL and the ACK of its 487 (RFC 3261 sections 9.1 and 17.1.1.3).
        let via = "Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=z9hG4bK-attendant-[pid]-[call_number];rport"
        func lines(_ extra: [String]) -> String { extra.map { $0 + "\n" }.joined() }
        try """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="cancelled call">
         <send retrans="500">
          <![CDATA[
        INVITE \(requestURI) SIP/2.0
        \(via)
        From: \(from);tag=[pid]SIPpTag00[call_number]
        To: <\(requestURI)>
        Call-ID: [call_id]
        CSeq: 1 INVITE
        Contact: <sip:caller@[local_ip]:[local_port]>
        Max-Forwards: 70
        \(lines(headers))Content-Length: 0

          ]]>
         </send>
         <recv response="100" optional="true"/>
         <recv response="180"/>
         <send retrans="500">
          <![CDATA[
        CANCEL \(requestURI) SIP/2.0
        \(via)
        From: \(from);tag=[pid]SIPpTag00[call_number]
        To: <\(requestURI)>
        Call-ID: [call_id]
        CSeq: 1 CANCEL
        Max-Forwards: 70
        \(lines(cancelHeaders))Content-Length: 0

          ]]>
         </send>
         <recv response="200"/>
         <recv response="487"/>
         <send>
          <![CDATA[
        ACK \(requestURI) SIP/2.0
        \(via)
        From: \(from);tag=[pid]SIPpTag00[call_number]
        [last_To:]
        Call-ID: [call_id]
        CSeq: 1 ACK
        Max-Forwards: 70
        Content-Length: 0

          ]]>
         </send>
        </scenario>

        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let sipp = try FixtureProcess(
            "sipp (caller)",
            "sipp",
            [
                remote, "-sf", scenario, "-m", "1", "-i", "127.0.0.1", "-p", "\(port)", "-t", "u1", "-trace_msg",
                "-message_file", messages, "-nostdin", "-timeout", "\(Int(seconds))s", "-timeout_error",
            ],
            environment: ProcessInfo.processInfo.environment
        )
        let status = await sipp.waitForExit(within: seconds + 5)
        return Exchange(status: status, messages: Self.messages(in: messages), output: sipp.stderr)
    }
}

/// A running sipp callee (SIPp.callee).
package final class SIPpCallee {
    package let process: FixtureProcess
    package let messageFile: String
    package let registration: SIPp.Exchange
    package let port: UInt16

    package init(process: FixtureProcess, messageFile: String, registration: SIPp.Exchange, port: UInt16) {
        self.process = process
        self.messageFile = messageFile
        self.registration = registration
        self.port = port
    }

    package var messages: [TracedSIPMessage] { SIPp.messages(in: self.messageFile) }
    /// The requests it received (INVITE, CANCEL, ACK).
    package var requests: [SIPMessage] { self.messages.filter { $0.direction == .received && $0.message.isRequest }.map(\.message) }

    /// Waits (bounded) until it received a `method` request.
    @discardableResult
    package func waitForRequest(_ method: String, within seconds: Double = 60) async throws -> SIPMessage {
        var found: SIPMessage?
        do {
            try await eventually("the sipp callee to receive \(method)", within: seconds) {
                found = self.requests.first { $0.method == method }
                if found == nil && !self.process.isRunning {
                    // sipp may have written the request and ended between the two looks: its file is whole
                    // once it has ended, so look once more before saying it never came.
                    found = self.requests.first { $0.method == method }
                    if found == nil { throw FixtureError("the sipp callee ended without a \(method)") }
                }
                return found != nil
            }
        } catch {
            throw FixtureError("\(error); it received \(self.requests.compactMap(\.method)); sipp: \(self.process.report)")
        }
        return found!
    }

    /// Waits (bounded) for sipp to finish its scenario; its exit status (0: ran to the end).
    package func waitForEnd(within seconds: Double = 30) async -> Int32? { await self.process.waitForExit(within: seconds) }

    deinit { self.process.terminate(within: 2) }
}
