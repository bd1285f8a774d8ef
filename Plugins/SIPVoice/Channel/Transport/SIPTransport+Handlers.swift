import AttendantPluginAPI
import SIPCore
import Synchronization

/// Parses each datagram as one SIP message (RFC 3261 section 18.3: no framing over UDP). Stray CRLFs
/// (NAT keep-alives) are ignored. A request's top Via is stamped with its source (`received`, and `rport`
/// when asked for), and its responses go where RFC 3261 section 18.2.2 says: to its source with `rport`
/// (RFC 3581), else to the source address at the port in the top Via's sent-by.
final class DatagramReception: Sendable {
    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    private let parser = SIPMessageParser()

    init(receive: @escaping @Sendable (SIPTransport.Arrival) -> Void) {
        self.receive = receive
    }

    /// On the host's I/O thread, as the datagram is read: an INVITE is parsed and handed on right there.
    func deliver(_ event: DatagramEvent) {
        switch event {
        case .datagram(let bytes, let source, let truncated):
            if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { return }
            let from = "\(source) over UDP"
            guard !truncated else {
                self.receive(.truncated(from: from, size: bytes.count))
                return
            }
            var message: SIPMessage
            do throws(SIPParseError) {
                message = try self.parser.parse(datagram: bytes)
            } catch {
                self.receive(.garbage(error, from: from, closed: false))
                return
            }
            var destination = source
            if case .request(var request) = message {
                // The server transport stamps the top Via (RFC 3261 section 18.2.1, RFC 3581 section 4), so
                // every response says where the request came from.
                if let via = request.noteSource(ip: source.ip, port: source.port), !via.hasRPort {
                    destination.port = via.port ?? 5060
                }
                message = .request(request)
            }
            self.receive(.message(message, SIPTransport.Origin(path: .datagram(destination), description: from)))
        case .unreachable(let reason):
            self.receive(.unreachable(reason))
        @unknown default:
            // News from a newer host that this plugin does not know: nothing it could act on.
            return
        }
    }
}

/// Frames one connection's byte stream into SIP messages and keep-alives (RFC 3261 section 18.3, RFC 5626):
/// the flow to the registrar, or a connection a proxy opened to the Contact, where bytes that are not SIP
/// close that connection only.
final class StreamReception: StreamReceiver {
    private struct State {
        var framer: SIPStreamFramer
        var reported = false
    }

    private let connection: any StreamConnection
    private let receive: @Sendable (SIPTransport.Arrival) -> Void
    /// The peer, for an inbound connection; nil on the flow.
    private let inbound: String?
    private let origin: SIPTransport.Origin
    /// The source of what arrives: the registrar on the flow, else the proxy that connected.
    private let peer: NetworkAddress
    /// The host calls one at a time; the lock makes that visible to the compiler, at no contention.
    private let state: Mutex<State>

    init(connection: any StreamConnection, transport: SIPTransport.Kind, receive: @escaping @Sendable (SIPTransport.Arrival) -> Void) {
        self.connection = connection
        self.receive = receive
        self.inbound = connection.isInbound ? "\(connection.peer) over \(transport.rawValue)" : nil
        self.peer = connection.peer
        self.origin =
            connection.isInbound
            ? SIPTransport.Origin(path: .connection(connection), description: "\(connection.peer) over \(transport.rawValue)")
            : SIPTransport.Origin(path: .flow, description: "the registrar")
        self.state = Mutex(State(framer: SIPStreamFramer(role: connection.isInbound ? .server : .client)))
    }

    func received(_ bytes: [UInt8]) {
        let reading = self.state.withLock { state in
            let reading = state.framer.read(bytes)
            // A stream that lost its framing cannot be resynchronised: it is reported once and dropped.
            if reading.failure != nil { state.reported = true }
            return reading
        }
        // The messages that came whole before any bad bytes are handled first: a call is not lost with them.
        for item in reading.items {
            switch item {
            case .message(.request(var request)):
                // As over UDP: the top Via says where the request came from (RFC 3261 section 18.2.1,
                // RFC 3581 section 4). Responses, the registrar's to our REGISTERs, are left alone.
                request.noteSource(ip: self.peer.ip, port: self.peer.port)
                self.receive(.message(.request(request), self.origin))
            case .message(let message): self.receive(.message(message, self.origin))
            case .keepAlivePong: self.receive(.pong)
            case .keepAlivePing: self.connection.write(SIPStreamFramer.pong)
            }
        }
        if let error = reading.failure {
            self.receive(.garbage(error, from: self.origin.description, closed: true))
            if self.inbound == nil {
                self.receive(.closed("the registrar sent bytes that are not SIP (\(error)); connection closed"))
            }
            self.connection.close()
        }
    }

    func closed(_ reason: String) {
        guard self.inbound == nil else { return }
        let first = self.state.withLock { state in
            defer { state.reported = true }
            return !state.reported
        }
        guard first else { return }
        // The host says "closed by the peer" for an orderly end, and names the failure otherwise.
        self.receive(
            .closed(reason == "closed by the peer" ? "the registrar closed the connection" : "the connection to the registrar failed: \(reason)")
        )
    }
}
