import AttendantCore
import AttendantPluginAPI
import Foundation
import Glibc
import SIPCore
import Synchronization
import TestSupport

/// A SIP peer on a loopback UDP socket that the test drives message by message: it plays the registrar
/// (and the proxy that relays calls) for one SIPVoice channel. Plain blocking sockets on a thread per
/// receive; every wait is bounded, so a missing message fails the test instead of hanging it.
final class ScriptedPeer: @unchecked Sendable {
    // @unchecked: the descriptor is set once in init and closed once (an atomic flag); socket calls are thread-safe.
    let descriptor: Int32
    let port: UInt16
    /// Where the channel sent from (its flow), learnt from its first message.
    private(set) var channelAddress: sockaddr_in?

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw PeerError("bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    private let closed = Atomic<Bool>(false)

    deinit { self.close() }

    /// Closes the socket: the port is gone, as when the registrar stops.
    func close() {
        guard !self.closed.exchange(true, ordering: .relaxed) else { return }
        Glibc.close(self.descriptor)
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
    func send(_ message: SIPMessage, to address: sockaddr_in) { self.send(bytes: message.serialized(), to: address) }

    func send(bytes: [UInt8], to destination: sockaddr_in) {
        var address = destination
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(self.descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
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
        let descriptor = self.descriptor
        let result: Result<([UInt8], sockaddr_in), any Error> = await offThePool {
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pollDescriptor, 1, Int32(seconds * 1000)) > 0 else { return .failure(PeerTimeout()) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var from = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length) }
            }
            guard count >= 0 else { return .failure(PeerError("recvfrom: \(String(cString: strerror(errno)))")) }
            return .success((Array(buffer[0..<count]), from))
        }
        let (bytes, from) = try result.get()
        self.channelAddress = from
        return bytes
    }
}

struct PeerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct PeerTimeout: Error, CustomStringConvertible {
    var description: String { "timed out" }
}

/// The SIPVoice plugin as the daemon gets it: its shared library (built beside the test bundle), loaded by
/// the daemon's own `PluginLoader`. (Linking the plugin target into the test bundle would clash with the
/// Loopback plugin's entry symbols.)
enum SIPVoicePlugin {
    static let factory: any ChannelPluginFactory = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        do {
            return try PluginLoader(searchPath: [(exe as NSString).deletingLastPathComponent]).load("sip-voice").factory
        } catch {
            fatalError("cannot load the sip-voice plugin: \(error)")
        }
    }()
}
