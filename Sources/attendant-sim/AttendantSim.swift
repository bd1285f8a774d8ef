import ArgumentParser
import ContactCenterSim
import Foundation
import UnixSignals

/// `attendant-sim`: the loopback contact centre for the demo and the daemon tests.
@main
struct AttendantSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendant-sim",
        abstract: "A loopback contact centre for voice: token endpoint, SIP registrar (Bearer tokens) and caller.",
        discussion: """
            On start prints one JSON line on stdout with the ports, the token URL and the registrar URIs:
              {"domain":…,"http_port":…,"registrar_tcp":…,"registrar_udp":…,"sip_port":…,"token_url":…}

            Token endpoint: GET or POST /token?identity=NAME -> {"token":…,"identity":…,"expires_in":…}

            Control API on the same HTTP port:
              POST /control/fault?kind=423|401-loop|503|silence|malformed|403[&times=N][&min-expires=S (423, default 900)][&retry-after=S (503)]
              POST /control/clear-faults
              POST /control/refuse-renewals?on=1|0
              POST /control/call?user=NAME          -> {"call_id":…}; outcome in GET /control/calls
              GET  /control/calls
              POST /control/restart?keep-bindings=1|0
              GET  /control/bindings?user=NAME
              GET  /control/status

            SIGTERM or SIGINT stops it (exit 0).
            """
    )

    @Option(help: "SIP port for UDP and TCP (0: any free port).")
    var sipPort: Int = 0

    @Option(help: "HTTP port of the token endpoint and control API (0: any free port).")
    var httpPort: Int = 0

    @Option(help: "Lifetime of issued tokens, in seconds.")
    var tokenLifetime: Int = 3600

    @Option(help: "File holding the HS256 signing key (its bytes, trailing newline removed). Default: a random key.")
    var signingKeyFile: String?

    @Option(help: "SIP domain: Bearer realm and host of every address of record.")
    var domain: String = "sim.attendant.test"

    @Option(help: "Call this user every --ring-every seconds once they are registered.")
    var ring: String?

    @Option(help: "Seconds between calls placed by --ring.")
    var ringEvery: Double = 30

    @Option(help: "Cancel a --ring call that has no final response after this many seconds.")
    var cancelAfter: Double?

    func validate() throws {
        guard (0...65535).contains(self.sipPort), (0...65535).contains(self.httpPort) else {
            throw ValidationError("ports must be between 0 and 65535")
        }
        guard self.tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be a positive number of seconds") }
        guard self.ringEvery > 0 else { throw ValidationError("--ring-every must be positive") }
        if let cancelAfter, cancelAfter <= 0 { throw ValidationError("--cancel-after must be positive") }
    }

    func run() async throws {
        var configuration = SimulatorConfiguration(
            sipPort: self.sipPort,
            httpPort: self.httpPort,
            domain: self.domain,
            tokenLifetime: .seconds(self.tokenLifetime)
        )
        if let file = self.signingKeyFile {
            guard var key = FileManager.default.contents(atPath: file).map(Array.init) else {
                throw ValidationError("cannot read the signing key file \(file); check the path and its permissions")
            }
            while key.last == UInt8(ascii: "\n") || key.last == UInt8(ascii: "\r") { key.removeLast() }
            guard !key.isEmpty else { throw ValidationError("the signing key file \(file) is empty") }
            configuration.signingKey = key
        }
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let simulator = try await ContactCenterSimulator.start(configuration)
        let announcement: [String: Any] = [
            "sip_port": simulator.sipPort,
            "http_port": simulator.httpPort,
            "token_url": simulator.tokenURL,
            "registrar_udp": simulator.registrarURI(transport: "udp"),
            "registrar_tcp": simulator.registrarURI(transport: "tcp"),
            "domain": configuration.domain,
        ]
        let data = try JSONSerialization.data(withJSONObject: announcement, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))

        await withTaskGroup(of: Void.self) { group in
            if let user = self.ring {
                group.addTask { await Ringer(simulator: simulator, user: user, every: self.ringEvery, cancelAfter: self.cancelAfter).run() }
            }
            for await _ in signals { break }
            group.cancelAll()
        }
        await simulator.stop()
    }
}

/// Calls one user at an interval and logs each outcome as one line on stderr.
struct Ringer {
    let simulator: ContactCenterSimulator
    let user: String
    let every: Double
    let cancelAfter: Double?

    func run() async {
        var number = 0
        while !Task.isCancelled {
            guard (try? await self.simulator.waitForBinding(of: self.user, timeout: .seconds(3600))) != nil else { continue }
            number += 1
            await self.place(number)
            try? await Task.sleep(for: .seconds(self.every))
        }
    }

    private func place(_ number: Int) async {
        let prefix = "call \(number) to \(self.user):"
        do {
            let call = try await self.simulator.call(user: self.user, fromDisplayName: "Grace Hopper", fromURI: "sip:grace@\(self.simulator.configuration.domain)")
            let wait: Duration = self.cancelAfter.map { .milliseconds(Int($0 * 1000)) } ?? .seconds(300)
            do {
                _ = try await call.waitForFinal(timeout: wait)
                let summary = call.summary
                var line = "\(prefix) \(summary.finalCode ?? 0) \(summary.finalReason ?? "")"
                if let redirect = summary.redirectTo { line += " -> \(redirect)" }
                log(line)
            } catch let error as SimulatorError where error.code == .timeout && self.cancelAfter != nil {
                try await call.cancel()
                log("\(prefix) 487 (caller cancelled)")
            }
        } catch {
            log("\(prefix) failed: \(error)")
        }
    }
}

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
