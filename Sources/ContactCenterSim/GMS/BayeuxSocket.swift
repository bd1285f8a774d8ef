import NIOCore
import NIOWebSocket

/// One CometD WebSocket: text frames, each a JSON array of messages.
final class BayeuxSocket: Sendable {
    let id: Int
    /// The `gms_user` header of the upgrade request.
    let gmsUser: String?
    private let channel: any Channel

    init(id: Int, gmsUser: String?, channel: any Channel) {
        self.id = id
        self.gmsUser = gmsUser
        self.channel = channel
    }

    func send(_ messages: [GMSJSON]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: GMSJSON.array(messages).encoded))
        self.channel.writeAndFlush(frame, promise: nil)
    }

    /// One text frame of `bytes` as they are (the bad-input fault).
    func send(raw bytes: [UInt8]) {
        self.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes)), promise: nil)
    }

    /// Closes the TCP connection without a close frame.
    func drop() { self.channel.close(promise: nil) }
}
