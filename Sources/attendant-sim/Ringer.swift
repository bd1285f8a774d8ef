import ContactCenterSim
import Foundation

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
            let call = try await self.simulator.call(
                user: self.user,
                fromDisplayName: "Grace Hopper",
                fromURI: "sip:grace@\(self.simulator.configuration.domain)"
            )
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
