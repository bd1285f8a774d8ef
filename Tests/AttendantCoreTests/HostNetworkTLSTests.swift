import AttendantCore
import AttendantPluginAPI
import Foundation
import NIOSSL
import TestSupport
import Testing

/// The TLS policy, from the one switch (`tls-verify`): a server whose certificate nobody vouches for is
/// refused over https and wss (a ``NetworkError/Kind/certificate`` failure: retrying does not help),
/// unless the channel's network was made not to check.
@Suite struct HostNetworkTLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost (openssl), as a server's TLS context.
    static func selfSigned() async throws -> NIOSSLContext {
        let folder = TemporaryFolder()
        let key = folder.path + "/key.pem"
        let certificate = folder.path + "/certificate.pem"
        // Waited for off the cooperative threads (TestSupport's run).
        let (status, said) = try await run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", certificate,
                "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ]
        )
        guard status == 0 else { throw FixtureError("openssl could not make a self-signed certificate: \(said)") }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
        )
        return try NIOSSLContext(configuration: configuration)
    }

    @Test func httpsToASelfSignedServer() async throws {
        let server = try await LoopbackHTTPServer.start(tls: try await Self.selfSigned()) { _ in .init(body: "over TLS") }
        defer { Task { try? await server.stop() } }
        let checking = HostNetwork(logger: Logger(label: "test"))
        let refused = await #expect(throws: NetworkError.self) { _ = try await checking.send(NetworkRequest(url: server.url + "/")) }
        #expect(refused?.kind == .certificate, "\(refused?.message ?? "")")
        #expect(refused?.message.hasPrefix("GET \(server.url)/ failed: TLS: ") == true, "\(refused?.message ?? "")")
        #expect(server.requests.isEmpty)

        let trusting = HostNetwork(verifiesTLS: false, logger: Logger(label: "test"))
        let response = try await trusting.send(NetworkRequest(url: server.url + "/"))
        #expect(String(decoding: response.body, as: UTF8.self) == "over TLS")
    }

    @Test func wssToASelfSignedServer() async throws {
        let server = try await LoopbackWebSocketServer.start(tls: try await Self.selfSigned())
        defer { Task { try? await server.stop() } }
        // By name: swift-websocket sends the URL's host as the TLS server name, which cannot be an IP address.
        let url = "wss://localhost:\(server.port)/"
        let events = Events()
        let checking = HostNetwork(logger: Logger(label: "test"))
        let refused = await #expect(throws: NetworkError.self) {
            _ = try await checking.openWebSocket(WebSocketRequest(url: url), events: events.record)
        }
        #expect(refused?.kind == .certificate, "\(refused?.message ?? "")")
        #expect(refused?.message.contains("SNI") == false, "\(refused?.message ?? "")")

        let trusting = HostNetwork(verifiesTLS: false, logger: Logger(label: "test"))
        let socket = try await trusting.openWebSocket(WebSocketRequest(url: url), events: events.record)
        try await socket.send(text: Array("secure".utf8))
        try await events.wait { !$0.isEmpty }
        #expect(events.all == [.text(Array("secure".utf8))])
        await socket.close()
    }
}
