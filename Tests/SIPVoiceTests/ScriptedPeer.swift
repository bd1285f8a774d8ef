import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import SIPCore
import Synchronization

/// A SIP peer at an address of the test kit's in-memory network that the test drives message by message:
/// it plays the registrar (and the proxy that relays calls) for one SIPVoice channel, or another proxy,
/// caller or listener beside it. It reads what the channel sent to its address, over whichever flow, and
/// sends into the channel's flow from its address. Every wait is bounded, so a missing message fails the
/// test instead of hanging it.
final class ScriptedPeer: Sendable {
    let network: InMemoryNetwork
    let port: Int
    var address: NetworkAddress { NetworkAddress(ip: "127.0.0.1", port: self.port) }
    private let learnt = Mutex<NetworkAddress?>(nil)
    /// Where the channel sent from (its flow), learnt from its latest message.
    var channelAddress: NetworkAddress? { self.learnt.withLock { $0 } }

    private static let ports = Atomic<Int>(15_060)

    init(on network: InMemoryNetwork) {
        self.network = network
        self.port = Self.ports.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The registrar stops: nothing listens at its address any more, and what the channel sends there
    /// comes back as "port unreachable", as the kernel's ICMP error does.
    func close() {
        self.network.setUnreachable(self.address)
    }

    var registrarURI: String { "sip:127.0.0.1:\(self.port)" }

    /// The next SIP message the channel sends (bounded wait). Bytes that are not SIP fail the wait.
    func receive(within seconds: Double = 30) async throws -> SIPMessage {
        let bytes = try await self.receiveBytes(within: seconds)
        return try SIPMessageParser().parse(datagram: bytes)
    }

    /// The next request with `method`, answering nothing else on the way (bounded).
    func receiveRequest(_ method: SIPMethod, within seconds: Double = 30) async throws -> SIPRequest {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw PeerError("no \(method) within \(seconds) s") }
            if case .request(let request) = try await self.receive(within: left), request.method == method { return request }
        }
    }

    /// The next response (to an INVITE this peer sent, say), bounded.
    func receiveResponse(within seconds: Double = 30) async throws -> SIPResponse {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw PeerError("no response within \(seconds) s") }
            if case .response(let response) = try await self.receive(within: left) { return response }
        }
    }

    /// Nothing arrives within `seconds`.
    func expectSilence(for seconds: Double) async throws -> SIPMessage? {
        do {
            return try await self.receive(within: seconds)
        } catch is PeerTimeout {
            return nil
        }
    }

    func send(_ message: SIPMessage) { self.send(bytes: message.serialized()) }

    func send(text: String) { self.send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) {
        guard let address = self.channelAddress else { return }
        self.send(bytes: bytes, to: address)
    }

    /// Sends to `address` (the channel's, learnt by another peer): a request from a source that is not the
    /// registrar.
    func send(_ message: SIPMessage, to address: NetworkAddress) { self.send(bytes: message.serialized(), to: address) }

    /// Into the channel's open flow at `destination`, from this peer's address; lost if there is none, as
    /// a datagram is.
    func send(bytes: [UInt8], to destination: NetworkAddress) {
        let flow = self.network.datagramFlows.last { $0.local == destination && !$0.isClosed }
        flow?.deliver(bytes, from: self.address)
    }

    /// Answers `request` (To tag added), with `contact` and extra header lines.
    func respond(_ request: SIPRequest, _ status: Int, contact: SIPNameAddress? = nil, _ headers: [(SIPHeaderName, String)] = []) {
        var extra = SIPHeaders()
        for (name, value) in headers { extra.add(name, value) }
        self.send(.response(.answering(request, statusCode: status, toTag: "peer1", contact: contact, extraHeaders: extra)))
    }

    /// Answers a REGISTER with 200, granting `expires` to its Contact (and the extra headers).
    func accept(_ register: SIPRequest, expires: UInt32? = nil, _ headers: [(SIPHeaderName, String)] = []) throws {
        guard var contact = try register.headers.contacts.first else { throw PeerError("REGISTER without Contact") }
        let requested = try register.headers.expires
        contact.parameters.set("expires", String(expires ?? requested ?? 600))
        self.respond(register, 200, contact: contact, headers)
    }

    /// Takes the channel through registration: REGISTER, 401 Bearer challenge, REGISTER with the token,
    /// 200. Returns the authenticated REGISTER.
    func register(expires: UInt32? = nil) async throws -> SIPRequest {
        let first = try await self.receiveRequest(.register)
        self.respond(first, 401, [(.wwwAuthenticate, "Bearer realm=\"example.org\"")])
        let second = try await self.receiveRequest(.register)
        try self.accept(second, expires: expires)
        return second
    }

    /// An INVITE from Ada to `user` through this peer, as a proxy relays it.
    func invite(
        to user: String = "alice",
        branch: String = "z9hG4bK-call-1",
        callID: String = "call-1@peer",
        headers drop: Set<String> = []
    ) -> SIPRequest {
        var headers = SIPHeaders()
        let lines: [(SIPHeaderName, String)] = [
            (.via, "SIP/2.0/UDP 127.0.0.1:\(self.port);branch=\(branch)"),
            (.maxForwards, "70"),
            (.from, "\"Ada Lovelace\" <sip:ada@example.org>;tag=ada1"),
            (.to, "<sip:\(user)@example.org>"),
            (.callID, callID),
            (.cseq, "1 INVITE"),
            (.contact, "<sip:ada@127.0.0.1:\(self.port)>"),
        ]
        for (name, value) in lines where !drop.contains(name.description) { headers.add(name, value) }
        return SIPRequest(method: .invite, uri: try! SIPURI(parsing: "sip:\(user)@127.0.0.1"), headers: headers)
    }

    /// A request in the INVITE's transaction (CANCEL, or ACK for a final response).
    func inTransaction(_ method: SIPMethod, of invite: SIPRequest, toTag: String? = nil) -> SIPRequest {
        var headers = SIPHeaders()
        for name in [SIPHeaderName.via, .from, .callID] { if let value = invite.headers[name] { headers.add(name, value) } }
        headers.add(.maxForwards, "70")
        headers.add(.to, (invite.headers[.to] ?? "") + (toTag.map { ";tag=\($0)" } ?? ""))
        headers.add(.cseq, "1 \(method)")
        return SIPRequest(method: method, uri: invite.uri, headers: headers)
    }

    private func receiveBytes(within seconds: Double) async throws -> [UInt8] {
        guard let (flow, datagram) = try? await self.network.nextDatagram(to: self.address, timeout: .milliseconds(Int(seconds * 1000))) else {
            throw PeerTimeout()
        }
        self.learnt.withLock { $0 = flow.local }
        return datagram.bytes
    }
}

struct PeerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct PeerTimeout: Error, CustomStringConvertible {
    var description: String { "timed out" }
}

/// The SIPVoice plugin as the daemon gets it: its shared library (built beside the test bundle), loaded
/// through its entry symbols by the test kit's `PluginLibrary`. (Linking the plugin target into the test
/// bundle would clash with the Loopback plugin's entry symbols.)
enum SIPVoicePlugin {
    static let factory: any ChannelPluginFactory = {
        do {
            return try PluginLibrary.built("sip-voice").factory
        } catch {
            fatalError("cannot load the sip-voice plugin: \(error)")
        }
    }()
}
