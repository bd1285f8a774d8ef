import Foundation
import Synchronization

// The voice peers' baresips: the callers and the softphones (see the top of VoicePeers.swift).
extension VoicePeers {
    /// A scratch folder for the next baresip.
    private func agentDirectory(_ user: String) -> String {
        self.directory + "/baresip-\(self.agentCount.add(1, ordering: .relaxed).newValue)-\(user)"
    }

    /// Starts baresip as `caller` (a From of `"displayName" <sip:caller@127.0.0.1>`, never registering) and
    /// dials `callee` at the registrar over `transport`.
    package func call(
        from caller: String = "caller",
        displayName: String? = "Test Caller",
        to callee: String,
        transport: PeerTransport = .udp
    ) async throws -> CallAttempt {
        try await self.call(from: caller, displayName: displayName, dialling: self.uri(callee, transport: transport))
    }

    /// Starts baresip as `caller` and dials `target` (any SIP URI).
    package func call(from caller: String = "caller", displayName: String? = "Test Caller", dialling target: String) async throws -> CallAttempt {
        let name = displayName.map { "\"\($0)\" " } ?? ""
        let agent = try await Baresip(
            directory: self.agentDirectory(caller),
            user: caller,
            account: "\(name)<sip:\(caller)@\(self.host)>;regint=0",
            children: self.children
        )
        let attempt = CallAttempt(agent: agent, target: target, peers: self)
        _ = try await agent.command("dial", target)
        return attempt
    }

    /// Starts baresip as a phone that registers `user` with `credentials` over `transport` (RFC 5626
    /// outbound over TCP when `outbound`), answering nothing by itself (incoming calls ring).
    package func phone(
        _ user: String,
        credentials: EphemeralCredentials,
        transport: PeerTransport = .udp,
        outbound: Bool = false,
        expires: Int = 600,
        displayName: String? = nil
    ) async throws -> Baresip {
        let name = displayName.map { "\"\($0)\" " } ?? ""
        var account =
            "\(name)<\(self.uri(user, transport: outbound ? .tcp : transport))>;auth_user=\(credentials.username)"
            + ";auth_pass=\(credentials.password);regint=\(expires)"
        if outbound { account += ";sipnat=outbound;outbound=\"\(self.registrarURI(transport: .tcp))\"" }
        return try await Baresip(directory: self.agentDirectory(user), user: user, account: account, children: self.children)
    }
}
