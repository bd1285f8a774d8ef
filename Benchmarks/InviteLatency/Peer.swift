import Glibc
import SIPCore

/// The benchmark's side of the wire: registrar for the channel's REGISTER and caller for the INVITEs, on
/// one plain blocking socket on 127.0.0.1 (no event loop of its own, so its timestamps are taken right at
/// the system calls).
///
/// UDP: one bound socket; the channel's flow is connected to it, so everything goes back to the address
/// the REGISTER came from. TCP: a listener; the channel connects, and the accepted connection carries
/// everything (RFC 5626 flow), framed with ``SIPStreamFramer``.
final class Peer {
    enum Transport: String {
        case udp
        case tcp
    }

    let transport: Transport
    let port: Int
    private let socket: Int32
    private var connection: Int32 = -1
    /// Where the channel is: the source of the REGISTER (UDP).
    private var remote = sockaddr_in()
    private var framer = SIPStreamFramer(role: .server)
    private let parser = SIPMessageParser()

    /// Opens the socket on 127.0.0.1, port picked by the kernel.
    init(_ transport: Transport) throws(BenchError) {
        self.transport = transport
        let fd = Glibc.socket(AF_INET, Int32(transport == .udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket(): \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, transport == .udp || listen(fd, 4) == 0 else {
            close(fd)
            throw BenchError("cannot bind a \(transport.rawValue) socket on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        self.socket = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Self.setReceiveTimeout(fd, seconds: 5)
    }

    deinit {
        if self.connection >= 0 { close(self.connection) }
        close(self.socket)
    }

    /// The registrar's URI as the channel's `registrar` setting.
    var registrarURI: String { "sip:127.0.0.1:\(self.port)" + (self.transport == .tcp ? ";transport=tcp" : "") }

    /// The top Via of what this side sends.
    func via(branch: String) -> String {
        "SIP/2.0/\(self.transport.rawValue.uppercased()) 127.0.0.1:\(self.port);branch=\(branch)"
    }

    /// Sends `message` to the channel; returns once the system call did.
    func send(_ message: SIPMessage) throws(BenchError) {
        let bytes = message.serialized()
        let sent = bytes.withUnsafeBytes { buffer -> Int in
            switch self.transport {
            case .udp:
                withUnsafePointer(to: &self.remote) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(self.socket, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            case .tcp:
                Glibc.send(self.connection, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
        }
        guard sent == bytes.count else { throw BenchError("sending to the channel failed: \(String(cString: strerror(errno)))") }
    }

    /// The next SIP message from the channel (keep-alive pings are answered and skipped); throws after 5 s
    /// of silence.
    func receive() throws(BenchError) -> SIPMessage {
        switch self.transport {
        case .udp: try self.receiveDatagram()
        case .tcp: try self.receiveFromStream()
        }
    }

    /// UDP: the next SIP message if one arrives within `milliseconds`, else nil (for the burst's timer A).
    func receive(within milliseconds: Int32) throws(BenchError) -> SIPMessage? {
        var poller = pollfd(fd: self.socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, max(0, milliseconds)) > 0 else { return nil }
        return try self.receiveDatagram()
    }

    private func receiveDatagram() throws(BenchError) -> SIPMessage {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var from = sockaddr_in()
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(self.socket, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count > 0 else { throw BenchError("nothing from the channel within 5 s over UDP (\(String(cString: strerror(errno))))") }
        self.remote = from
        do {
            return try self.parser.parse(datagram: Array(buffer[..<count]))
        } catch {
            throw BenchError("the channel sent a datagram that is not SIP: \(error)")
        }
    }

    private func receiveFromStream() throws(BenchError) -> SIPMessage {
        if self.connection < 0 {
            self.connection = accept(self.socket, nil, nil)
            guard self.connection >= 0 else { throw BenchError("the channel did not connect within 5 s (\(String(cString: strerror(errno))))") }
            var one: Int32 = 1
            setsockopt(self.connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            Self.setReceiveTimeout(self.connection, seconds: 5)
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            do {
                while let item = try self.framer.next() {
                    switch item {
                    case .message(let message): return message
                    case .keepAlivePing:
                        _ = SIPStreamFramer.pong.withUnsafeBytes { Glibc.send(self.connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    case .keepAlivePong: continue
                    }
                }
            } catch {
                throw BenchError("the channel sent bytes that are not SIP: \(error)")
            }
            let count = buffer.withUnsafeMutableBytes { recv(self.connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw BenchError("the channel's TCP connection ended or stayed silent for 5 s (\(String(cString: strerror(errno))))")
            }
            self.framer.append(buffer[..<count])
        }
    }

    private static func setReceiveTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// What went wrong, said plainly; the benchmark stops with it.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
