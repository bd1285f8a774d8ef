import AttendantPluginAPI
import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

// TLS streams (StreamOptions.tls): NIOSSL's client handler by the channel's policy, and a handler that
// holds the connection back from its receiver until the handshake is done.
extension HostNetwork {
    /// Whether a TLS failure is the certificate's: BoringSSL's chain check (`CERTIFICATE_VERIFY_FAILED`:
    /// no trusted issuer, expired, not yet valid) or NIOSSL's name check (RFC 6125) after it.
    static func isCertificateFailure(_ error: any Error) -> Bool {
        switch error {
        case NIOSSLError.handshakeFailed(let failure): "\(failure)".contains("CERTIFICATE_VERIFY_FAILED")
        case let error as NIOSSLExtraError: error == .failedToValidateHostname
        default: false
        }
    }

    /// A failed TLS handshake with `name` (`serverName`, at `peer`), in the user's words.
    func streamTLSFailure(_ error: any Error, name: String, peer: NetworkAddress) -> NetworkError {
        if let error = error as? NetworkError { return error }
        let server = name == peer.ip ? "\(peer)" : "\(name) (\(peer))"
        switch error {
        case NIOSSLError.handshakeFailed where Self.isCertificateFailure(error):
            return NetworkError(
                .certificate,
                "the TLS certificate of \(server) does not verify: it is not issued by a CA this channel trusts (\(self.tls.trusted)), or it has expired"
            )
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return NetworkError(
                .certificate,
                "the TLS certificate of \(server) does not verify: it is not for \(name) (its subjectAltName does not name it)"
            )
        case let error as NIOSSLError:
            return NetworkError(.tls, "the TLS handshake with \(server) failed: \(error)")
        case NIOCore.ChannelError.eof, NIOCore.ChannelError.ioOnClosedChannel, NIOCore.ChannelError.alreadyClosed:
            return NetworkError(.tls, "\(server) closed the connection during the TLS handshake")
        default:
            return NetworkError(.tls, "the TLS handshake with \(server) failed: \(SocketFailure.describe(error))")
        }
    }

    /// NIOSSL's client handler for `serverName`: SNI and the name check for a name, the IP check (and no
    /// SNI, RFC 6066 section 3) for an IP address.
    func streamTLSHandler(serverName: String) throws -> NIOSSLClientHandler {
        let context = try self.streamTLSContext.withLock { context in
            if let context { return context }
            let made = try NIOSSLContext(configuration: Shared.tlsConfiguration(self.tls))
            context = made
            return made
        }
        let isAddress = (try? SocketAddress(ipAddress: serverName, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : serverName)
    }
}

/// Sits after NIOSSL's handler until the handshake is done: then it puts the connection's delivery
/// handler in its place and completes `handshake`; a failure, the peer closing, or the time limit first
/// fails it. So a receiver hears only from a connection whose server proved who it is.
final class TLSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let delivery: StreamDeliveryHandler
    private let handshake: EventLoopPromise<Void>
    private let limit: TimeAmount
    private var timer: Scheduled<Void>?
    private var done = false

    init(delivery: StreamDeliveryHandler, handshake: EventLoopPromise<Void>, limit: TimeAmount) {
        self.delivery = delivery
        self.handshake = handshake
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timer = context.eventLoop.scheduleTask(in: self.limit) {
            let (handler, context) = loopBound.value
            handler.fail(NetworkError(.timeout, "the TLS handshake did not finish within \(handler.limit.nanoseconds / 1_000_000_000) s"))
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event, !self.done {
            self.done = true
            self.timer?.cancel()
            do {
                try context.pipeline.syncOperations.addHandler(self.delivery, position: .after(self))
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                self.handshake.succeed()
            } catch {
                self.handshake.fail(error)
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(NIOCore.ChannelError.eof)
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        guard !self.done else { return }
        self.done = true
        self.timer?.cancel()
        self.handshake.fail(error)
    }
}
