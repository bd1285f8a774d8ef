package import AttendantPluginAPI
import Glibc
import ServiceLifecycle
import Synchronization

/// Follows the kernel's routing messages (rtnetlink) and tells every channel when the network comes back
/// or changes: a link comes up, an address or a default route appears (``NetworkState``). A channel
/// waiting out its backoff then retries at once, and a listening one checks its connection at once
/// (``SupervisorStateMachine/networkChanged(now:)``), so a drop is over within a second of the network
/// returning rather than at the next backoff step or keep-alive. DESIGN.md: "retry immediately on resume
/// or network change".
///
/// It needs no daemon (NetworkManager, systemd-networkd): it reads what they and `ip` change. A burst of
/// messages (a link coming up brings its addresses and routes) is one change: the channels are told
/// ``settle`` after the last of them. The reading thread sleeps in `poll` while nothing changes.
package final class NetworkMonitor: Service {
    // `<linux/netlink.h>` and `<linux/rtnetlink.h>`, part of the kernel's ABI.
    static let netlinkRoute: Int32 = 0  // NETLINK_ROUTE
    /// RTMGRP_LINK, RTMGRP_IPV4_IFADDR, RTMGRP_IPV4_ROUTE, RTMGRP_IPV6_IFADDR, RTMGRP_IPV6_ROUTE.
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    static let getLink: UInt16 = 18, getAddress: UInt16 = 22, getRoute: UInt16 = 26
    static let requestFlags: UInt16 = 0x1 | 0x300  // NLM_F_REQUEST | NLM_F_DUMP

    private let onChange: @Sendable (NetworkState.Gain) -> Void
    private let logger: Logger
    private let settle: Duration

    /// `onChange` is called once per change, with what appeared.
    package init(settle: Duration = .milliseconds(100), logger: Logger, onChange: @escaping @Sendable (NetworkState.Gain) -> Void) {
        self.settle = settle
        self.logger = logger
        self.onChange = onChange
    }

    /// The daemon's: every channel is told, and the change is logged.
    package convenience init(fleet: ChannelFleet, logger: Logger) {
        self.init(logger: logger) { gain in
            logger.notice("the network changed (\(gain)): channels waiting to retry retry now, listening ones check their connection")
            fleet.networkChanged()
        }
    }

    package func run() async {
        let socket: Netlink
        do {
            socket = try Netlink()
        } catch {
            self.logger.warning("cannot follow the network's changes (rtnetlink: \(error)); channels retry on their own schedule when it comes back")
            try? await gracefulShutdown()
            return
        }
        let milliseconds = Int32(self.settle.components.seconds * 1000 + self.settle.components.attoseconds / 1_000_000_000_000_000)
        // The service ends with the daemon's graceful shutdown, which cancels the reading.
        await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    Thread.detach { [onChange = self.onChange, logger = self.logger] in
                        socket.follow(settle: milliseconds, logger: logger, onChange)
                        finished.resume()
                    }
                }
            } onCancel: {
                socket.stop()
            }
        }
    }
}

/// An rtnetlink socket joined to the groups the monitor reads, and the pipe that stops its thread.
private final class Netlink: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    let stopPipe: (read: Int32, write: Int32)
    let stopped = Mutex(false)

    init() throws(Failure) {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NetworkMonitor.netlinkRoute)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        // struct sockaddr_nl: family (u16), pad (u16), pid (u32: 0, the kernel picks), groups (u32).
        var address = [UInt8](repeating: 0, count: 12)
        address[0] = UInt8(AF_NETLINK)
        withUnsafeBytes(of: NetworkMonitor.groups.littleEndian) { address.replaceSubrange(8..<12, with: $0) }
        let bound = address.withUnsafeBytes { bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12) }
        var fds: [Int32] = [0, 0]
        guard bound == 0, pipe(&fds) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "bind: \(reason)")
        }
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        self.fd = fd
        self.stopPipe = (fds[0], fds[1])
    }

    deinit {
        close(self.fd)
        close(self.stopPipe.read)
        close(self.stopPipe.write)
    }

    func stop() {
        let first = self.stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(self.stopPipe.write, &byte, 1)
        }
    }

    /// Learns the network as it is (dumps of the links, addresses and routes; no change is reported for
    /// them), then reads changes until stopped, reporting each burst `settle` ms after its last message.
    func follow(settle: Int32, logger: Logger, _ onChange: (NetworkState.Gain) -> Void) {
        var state = NetworkState()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for (sequence, (type, header)) in [(NetworkMonitor.getLink, 16), (NetworkMonitor.getAddress, 8), (NetworkMonitor.getRoute, 12)].enumerated() {
            guard self.request(type, headerSize: header, sequence: UInt32(sequence + 1)) else {
                logger.warning("cannot ask the kernel for the network's state: \(String(cString: strerror(errno)))")
                return
            }
            var ended = false
            while !ended {
                guard let datagram = self.receive(&buffer, timeout: -1) else { return }
                _ = state.apply(datagram, ended: &ended)
            }
        }
        var pending: [String] = []
        while true {
            guard let datagram = self.receive(&buffer, timeout: pending.isEmpty ? -1 : settle) else { return }
            if datagram.isEmpty {
                onChange(NetworkState.Gain(what: pending))
                pending = []
                continue
            }
            if datagram == Self.overflow {
                pending.append("messages lost, the receive buffer was full")
                continue
            }
            var ended = false
            if let gain = state.apply(datagram, ended: &ended) { pending += gain.what }
        }
    }

    /// A dump request: `struct nlmsghdr` and a zeroed family header of `headerSize` bytes.
    private func request(_ type: UInt16, headerSize: Int, sequence: UInt32) -> Bool {
        var message = [UInt8](repeating: 0, count: 16 + headerSize)
        withUnsafeBytes(of: UInt32(message.count).littleEndian) { message.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: type.littleEndian) { message.replaceSubrange(4..<6, with: $0) }
        withUnsafeBytes(of: NetworkMonitor.requestFlags.littleEndian) { message.replaceSubrange(6..<8, with: $0) }
        withUnsafeBytes(of: sequence.littleEndian) { message.replaceSubrange(8..<12, with: $0) }
        return message.withUnsafeBytes { send(self.fd, $0.baseAddress, $0.count, 0) } == message.count
    }

    /// The next datagram; empty when `timeout` ms passed without one; nil once stopped (or the socket
    /// failed). A receive buffer that overflowed lost messages: reported as a change, since something did.
    private func receive(_ buffer: inout [UInt8], timeout: Int32) -> [UInt8]? {
        while !self.stopped.withLock({ $0 }) {
            var fds = [pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: self.stopPipe.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if fds[1].revents != 0 { return nil }
            if ready == 0 { return [] }
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count < 0, errno == ENOBUFS { return Self.overflow }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            return nil
        }
        return nil
    }

    /// What ``receive(_:timeout:)`` returns when the kernel dropped messages it could not queue (no
    /// datagram is this short).
    static let overflow: [UInt8] = [0]
}
