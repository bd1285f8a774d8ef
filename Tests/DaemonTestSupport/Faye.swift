import Foundation
import Glibc
import TestSupport

/// Faye 1.4 (Debian `ruby-faye`) under thin, serving Bayeux at `/genesys/cometd` on a loopback port:
/// a real Bayeux server nobody here wrote, for the GMSChat plugin's client (Tests/Fixtures/gms/faye.ru).
///
/// Its differences from CometD and GMS are the ones gms-cometd.md §3 lists: every `/meta/connect` is held
/// for the whole timeout (the first one too), an unknown client is `401:<id>:Unknown client` with advice
/// `handshake`, a `/service/*` subscription is refused with 403.
package final class Faye: Sendable {
    package let port: UInt16
    package let timeout: Int
    private let process: FixtureProcess

    /// `http://127.0.0.1:PORT/genesys/cometd`.
    package var url: String { "http://127.0.0.1:\(self.port)/genesys/cometd" }

    private init(port: UInt16, timeout: Int, process: FixtureProcess) {
        self.port = port
        self.timeout = timeout
        self.process = process
    }

    /// Starts thin with Faye (holding connects `timeout` seconds) and returns once it accepts connections;
    /// `port` restarts a stopped one on the port it had. A port picked here is free when picked, but another
    /// test may bind it before thin does (ruby takes a second or more to start on a busy machine): then thin
    /// says "no acceptor", and up to three other ports are tried.
    package static func start(timeout: Int = 25, port: UInt16? = nil) async throws -> Faye {
        var attempt = 1
        while true {
            do {
                return try await Self.start(timeout: timeout, on: try port ?? LoopbackPort.pickTCP())
            } catch let error as FixtureError where port == nil && attempt < 4 && error.description.contains("no acceptor") {
                attempt += 1
            }
        }
    }

    private static func start(timeout: Int, on port: UInt16) async throws -> Faye {
        let config = BuildProducts.packageRoot + "/Tests/Fixtures/gms/faye.ru"
        var environment = ProcessInfo.processInfo.environment
        environment["FAYE_TIMEOUT"] = String(timeout)
        let process = try FixtureProcess(
            "thin",
            "thin",
            ["start", "-R", config, "-a", "127.0.0.1", "-p", String(port)],
            environment: environment
        )
        let faye = Faye(port: port, timeout: timeout, process: process)
        do {
            try await eventually("Faye to listen on 127.0.0.1:\(port) (thin's stderr: \(process.stderr))") {
                guard process.isRunning else { throw FixtureError("thin exited: \(process.stderr)\(process.stdout)") }
                return Self.accepts(port)
            }
        } catch {
            await process.terminate()
            throw error
        }
        return faye
    }

    /// Stops the server (SIGTERM, then SIGKILL): every client session it had is gone.
    package func stop() {
        self.process.terminate(within: 5)
    }

    /// ``stop()`` from a test's body, without holding a cooperative thread while Faye ends.
    package func stop() async {
        await self.process.terminate(within: 5)
    }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
