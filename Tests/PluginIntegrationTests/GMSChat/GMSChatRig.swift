import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import ContactCenterSim
import Foundation

/// A started simulator and a gms-chat channel for its GMS server, in-process: the plugin's .so on the
/// daemon's network (HostNetwork), with the test kit's host and its manual clock.
struct GMSChatRig {
    let simulator: ContactCenterSimulator
    let host: InMemoryChannelHost
    let channel: any Channel
    /// The channel's own work, as the host runs it for the channel's life.
    let running: Task<Void, Never>

    static func start(
        apiVersion: Int = 2,
        transport: String = "websocket",
        server: GMSServerSettings = GMSServerSettings(),
        host: InMemoryChannelHost? = nil,
        simulator given: ContactCenterSimulator? = nil
    ) async throws -> GMSChatRig {
        var configuration = SimulatorConfiguration()
        configuration.gms = server
        let simulator: ContactCenterSimulator
        if let given {
            simulator = given
        } else {
            simulator = try await ContactCenterSimulator.start(configuration)
        }
        let host = host ?? InMemoryChannelHost(channelName: "gms", network: HostNetwork(logger: Logger(label: "test")))
        let settings = ChannelSettings([
            "url": .string(simulator.gms.baseURL),
            "api-version": .integer(Int64(apiVersion)),
            "service": .string(apiVersion == 2 ? simulator.gms.serviceName : "request-chat"),
            "transport": .string(transport),
            "first-name": .string("Grace"),
            "last-name": .string("Hopper"),
            "subject": .string("Parcel"),
        ])
        let channel = try GMSChatPlugin.factory.makeChannel(settings: settings, host: host)
        return GMSChatRig(simulator: simulator, host: host, channel: channel, running: Task { await channel.run() })
    }

    /// The same host and simulator with a new channel: the daemon restarted.
    func restartChannel(apiVersion: Int = 2, transport: String = "websocket") async throws -> GMSChatRig {
        await self.channel.stopListening()
        self.running.cancel()
        return try await Self.start(apiVersion: apiVersion, transport: transport, host: self.host, simulator: self.simulator)
    }

    func stop() async {
        await self.channel.stopListening()
        self.running.cancel()
        await self.simulator.stop()
    }

    /// Every message event so far, in order.
    var messages: [ChatMessage] {
        self.host.events.compactMap { if case .messageReceived(let message) = $0 { message } else { nil } }
    }

    /// The agent's texts shown so far, in order.
    var agentTexts: [String] { self.messages.filter { $0.direction == .fromAgent }.map(\.text) }

    /// Waits up to 60 s (of the wall clock) for `condition`. With `timePassing`, the channel's manual clock
    /// follows the wall clock meanwhile, so its retries and backoffs run as they would in the daemon;
    /// otherwise its time stands still.
    func until(_ what: String, timePassing: Bool = false, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = ContinuousClock.now
        while !condition() {
            if timePassing {
                let now = ContinuousClock.now
                self.host.manualClock.advance(by: now - last)
                last = now
            }
            guard ContinuousClock.now < deadline else {
                throw ChannelError(
                    .transient,
                    "\(what): not within 60 s; messages: \(self.messages.map(\.text)); log: \(self.host.logRecords.all.suffix(20).map(\.message))"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The channel's `chat-status` fields.
    func status() async throws -> [String: String] {
        guard case .fields(let fields) = try await self.channel.perform(.custom(command: "chat-status", arguments: [:])) else { return [:] }
        return fields
    }
}

enum GMSChatPlugin {
    /// The plugin, loaded from its .so beside the test bundle by the daemon's loader (linking its target
    /// into the bundle would clash with the other plugins' entry symbols).
    static let factory: any ChannelPluginFactory = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        do {
            return try PluginLoader(searchPath: [(exe as NSString).deletingLastPathComponent]).load("gms-chat").factory
        } catch {
            fatalError("cannot load the gms-chat plugin: \(error)")
        }
    }()
}
