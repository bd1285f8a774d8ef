import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// A real HTTP/1.1 server on 127.0.0.1, port 0, that answers each request with what `respond` says:
/// the peer the token manager's url source and the host's network talk to in tests.
final class LoopbackHTTPServer: Sendable {
    struct Request: Sendable, Hashable {
        var method: String
        var uri: String
        var headers: [String: String]
        var body = ""
    }

    struct Response: Sendable {
        var status: Int = 200
        var contentType = "text/plain"
        var body: String
        /// More header lines (Set-Cookie may repeat).
        var headers: [(name: String, value: String)] = []
        /// Never answer (the client's timeout must act).
        var hang = false
        /// Answer with the head and half the body, then nothing (the client's timeout must act).
        var stallBody = false
    }

    let port: Int
    let secure: Bool
    private let channel: any NIOCore.Channel
    private let received: Mutex<[Request]>

    private init(port: Int, channel: any NIOCore.Channel, secure: Bool) {
        self.port = port
        self.secure = secure
        self.channel = channel
        self.received = Mutex([])
    }

    var requests: [Request] { self.received.withLock { $0 } }

    var url: String { "\(self.secure ? "https" : "http")://127.0.0.1:\(self.port)" }

    /// With `tls`, the server speaks HTTPS.
    static func start(tls: NIOSSLContext? = nil, respond: @escaping @Sendable (Request) -> Response) async throws -> LoopbackHTTPServer {
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(respond: respond, log: log))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = LoopbackHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel, secure: tls != nil)
        log.server.withLock { $0 = server }
        return server
    }

    func stop() async throws { try await self.channel.close() }

    fileprivate func record(_ request: Request) { self.received.withLock { $0.append(request) } }

    fileprivate final class RequestLog: Sendable {
        let server = Mutex<LoopbackHTTPServer?>(nil)
        func record(_ request: Request) { self.server.withLock { $0 }?.record(request) }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let respond: @Sendable (Request) -> Response
        let log: RequestLog
        var request: Request?

        init(respond: @escaping @Sendable (Request) -> Response, log: RequestLog) {
            self.respond = respond
            self.log = log
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                self.request = Request(method: head.method.rawValue, uri: head.uri, headers: headers)
            case .body(var buffer):
                self.request?.body += buffer.readString(length: buffer.readableBytes) ?? ""
            case .end:
                guard let request = self.request else { return }
                self.log.record(request)
                let response = self.respond(request)
                if response.hang { return }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: response.contentType)
                headers.add(name: "Content-Length", value: "\(response.body.utf8.count)")
                for (name, value) in response.headers { headers.add(name: name, value: value) }
                let status = HTTPResponseStatus(statusCode: response.status)
                context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
                if response.stallBody {
                    let half = String(response.body.prefix(response.body.count / 2))
                    context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: half)))), promise: nil)
                    return
                }
                context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: response.body)))), promise: nil)
                context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}

/// A private folder for one test, removed at the end.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        self.path = try! makeTemporaryFolder("attendant-core-test")
    }

    @discardableResult
    func write(_ name: String, _ text: String, mode: mode_t = 0o600) -> String {
        let file = self.path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(file)")
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        chmod(file, mode)
        return file
    }

    func read(_ name: String) -> String? {
        guard let file = fopen(self.path + "/" + name, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil { text += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }
        return text
    }

    deinit {
        _ = self.path.withCString { path in
            // Small folders: remove the files, then the folder.
            if let dir = opendir(path) {
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                    if name != "." && name != ".." { unlink(self.path + "/" + name) }
                }
                closedir(dir)
            }
            return rmdir(path)
        }
    }
}
