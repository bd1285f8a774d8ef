import Foundation
import Glibc
import Synchronization
import TestSupport

/// One message seen on a bus by `busctl monitor --json=short`.
package struct BusMessage: Sendable {
    /// method_call, method_return, error or signal.
    package let type: String
    package let sender: String?
    package let destination: String?
    package let path: String?
    package let interface: String?
    package let member: String?
    package let cookie: Int?
    package let replyCookie: Int?
    package let signature: String
    /// The body's arguments, variants unwrapped one level (a{sv} stays an object of `{type, data}`).
    package let arguments: [JSONValue]
    package let raw: JSONValue

    package init?(_ json: JSONValue) {
        guard let type = json["type"]?.string else { return nil }
        self.type = type
        self.sender = json["sender"]?.string
        self.destination = json["destination"]?.string
        self.path = json["path"]?.string
        self.interface = json["interface"]?.string
        self.member = json["member"]?.string
        self.cookie = json["cookie"]?.int
        self.replyCookie = json["reply_cookie"]?.int
        self.signature = json["payload"]?["type"]?.string ?? ""
        self.arguments = json["payload"]?["data"]?.array ?? []
        self.raw = json
    }
}

/// `busctl --address=ADDRESS monitor --json=short`, parsed as it runs.
package final class BusMonitor: Sendable {
    package let address: String
    private let child: FixtureProcess
    private let parsed: Locked<(pending: Data, messages: [BusMessage])>

    package init(address: String, environment: [String: String]) async throws {
        self.address = address
        let parsed = Locked<(pending: Data, messages: [BusMessage])>((Data(), []))
        self.parsed = parsed
        self.child = try FixtureProcess(
            "busctl monitor",
            "busctl",
            ["--address=" + address, "monitor", "--json=short"],
            environment: environment
        ) { data in
            parsed.withLock { state in
                state.pending.append(data)
                while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = state.pending[state.pending.startIndex..<newline]
                    state.pending = Data(state.pending[state.pending.index(after: newline)...])
                    if let json = try? JSONDecoder().decode(JSONValue.self, from: Data(line)), let message = BusMessage(json) {
                        state.messages.append(message)
                    }
                }
            }
        }
        // busctl says so once the bus made it a monitor (BecomeMonitor answered).
        let child = self.child
        do {
            try await eventually("busctl monitor on \(address) to start") {
                guard child.isRunning else { throw FixtureError("busctl monitor failed: \(child.report)") }
                return child.stderr.contains("Monitoring bus message stream.")
            }
        } catch {
            await child.terminate()
            throw error
        }
    }

    package var messages: [BusMessage] { self.parsed.withLock { $0.messages } }

    package func signals(_ member: String, interface: String? = nil, path: String? = nil) -> [BusMessage] {
        self.messages.filter {
            $0.type == "signal" && $0.member == member && (interface == nil || $0.interface == interface) && (path == nil || $0.path == path)
        }
    }

    /// The method calls named `member` (of `interface`, if given).
    package func calls(_ member: String, interface: String? = nil) -> [BusMessage] {
        self.messages.filter { $0.type == "method_call" && $0.member == member && (interface == nil || $0.interface == interface) }
    }

    /// The reply (method_return or error) to `call`.
    package func reply(to call: BusMessage) -> BusMessage? {
        self.messages.first {
            ($0.type == "method_return" || $0.type == "error") && $0.replyCookie == call.cookie && $0.destination == call.sender
        }
    }

    /// Waits (bounded) for a message that satisfies `predicate`, seen after the first `skip` messages.
    @discardableResult
    package func waitFor(
        _ what: String,
        after skip: Int = 0,
        within seconds: Double = 60,
        _ predicate: (BusMessage) -> Bool
    ) async throws -> BusMessage {
        var found: BusMessage?
        try await eventually("\(what) on \(self.address)", within: seconds) {
            found = self.messages.dropFirst(skip).first(where: predicate)
            return found != nil
        }
        return found!
    }

    package func stop() { self.child.terminate() }
    /// ``stop()`` from a test's body, without holding a cooperative thread.
    package func stop() async { await self.child.terminate() }

    deinit { self.child.terminate() }
}
