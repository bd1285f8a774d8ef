// swift-tools-version:6.1
//
// Attendant: a systemd user service that keeps a person at a Linux workstation reachable on contact-centre
// chat and voice services. See README.md and ../shared/DESIGN.md.
import PackageDescription

/// Swift 6 language mode (the tools version's default) plus the strictness the project holds itself to.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The plugin API, linked as the one shared library every binary and plugin shares.
let pluginAPI: Target.Dependency = .product(name: "AttendantPluginAPI", package: "AttendantPluginAPI")

let package = Package(
    name: "Attendant",
    products: [
        .executable(name: "attendantd", targets: ["attendantd"]),
        .executable(name: "attendantctl", targets: ["attendantctl"]),
        // The loopback contact-centre simulator, for the demo and the daemon tests.
        .executable(name: "attendant-sim", targets: ["attendant-sim"]),
        // Channel plugins: each is a shared library of its own, loaded by attendantd at run time.
        .library(name: "attendant-loopback", type: .dynamic, targets: ["Loopback"]),
        .library(name: "attendant-sip-voice", type: .dynamic, targets: ["SIPVoice"]),
        .library(name: "attendant-cxone-chat", type: .dynamic, targets: ["CXoneChat"]),
        .library(name: "attendant-gms-chat", type: .dynamic, targets: ["GMSChat"]),
        .library(name: "attendant-genesys-messaging", type: .dynamic, targets: ["GenesysMessaging"]),
        .library(name: "attendant-karte-actions", type: .dynamic, targets: ["KarteActions"]),
    ],
    dependencies: [
        .package(path: "Plugins/AttendantPluginAPI"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // Named for HostNetwork's TLS policy (NIOSSL) and WebSocket headers (HTTPTypes); both come with the two above.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The daemon's metrics API (CoreMetrics): counters, gauges and timers, without a global bootstrap.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Prometheus text for those metrics (attendantctl metrics, [metrics] listen), one registry per daemon.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // MARK: The daemon and its libraries

        // libsystemd, through pkg-config (Debian: libsystemd-dev).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // zlib, through pkg-config (Debian: zlib1g-dev): gzip bodies for the KARTE track API.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // sd_notify, the watchdog and sd-bus; no swift-log, so attendantctl does not link the plugin API.
        .target(
            name: "Systemd",
            dependencies: ["CSystemd"],
            swiftSettings: strictness
        ),
        // The journald log handler (and its stderr fallback): swift-log, through the plugin API.
        .target(
            name: "Journald",
            dependencies: ["CSystemd", pluginAPI],
            swiftSettings: strictness
        ),
        // The daemon's D-Bus API: names and record types shared by the daemon and attendantctl.
        .target(
            name: "AttendantControl",
            dependencies: ["Systemd"],
            swiftSettings: strictness
        ),
        .target(
            name: "AttendantCore",
            dependencies: [
                "Systemd",
                "AttendantControl",
                pluginAPI,
                // The channels' cookie jar, shared with the test kit's network.
                .product(name: "AttendantCookies", package: "AttendantPluginAPI"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The network the host lends its channels (HostNetwork): one copy in the process.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // TLSUserEvent: a TLS stream's receiver hears from it once the handshake is done.
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Hashes and HMACs for the channels (HostHashing).
                .product(name: "Crypto", package: "swift-crypto"),
                // DaemonMetrics: swift-metrics handles made by a Prometheus registry of the daemon's own.
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictness
        ),
        // The daemon's single-threaded main and global executor (no libdispatch pool, so no
        // once-a-second wake-up; DESIGN.md section 8). No dependencies: it is Swift's runtime plus Linux.
        .target(name: "CAttendantExecutor"),
        .target(
            name: "AttendantExecutor",
            dependencies: ["CAttendantExecutor"],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "attendantd",
            dependencies: [
                "AttendantExecutor",
                "AttendantCore",
                "Journald",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictness
        ),

        // MARK: attendantctl

        // attendantctl's commands and output, a library so tests can run them in-process; the
        // executable only calls Attendantctl.main(arguments:).
        .target(
            name: "AttendantCLI",
            dependencies: [
                "AttendantControl",
                "Systemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "attendantctl",
            dependencies: [
                "AttendantCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictness
        ),

        // MARK: The contact-centre simulator (attendant-sim)

        // Loopback contact-centre backends: token endpoint, SIP registrar and caller, control API.
        .target(
            name: "ContactCenterSim",
            dependencies: [
                // gzip track bodies for the KARTE endpoint, read with the simulator's own wrapper (not KarteCore's).
                "CZlib",
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "attendant-sim",
            dependencies: [
                "ContactCenterSim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),

        // MARK: The channel plugins, each a protocol core and a channel (.so)

        .target(
            name: "Loopback",
            dependencies: [pluginAPI],
            path: "Plugins/Loopback",
            exclude: ["README.md"],
            swiftSettings: strictness
        ),

        // The SIPVoice plugin's protocol layer: SIP messages, framing, authentication, the registration
        // state machine and INVITE server transactions. Pure (no I/O, no clock of its own); the parser part
        // (SIPCore/Message) imports nothing, so Fuzz/SIPParser compiles it alone with -sanitize=fuzzer.
        // Digest hashes come from the host (the plugin API's ChannelHashing), so it links no cryptography.
        .target(
            name: "SIPCore",
            dependencies: [pluginAPI],
            path: "Plugins/SIPVoice/SIPCore",
            swiftSettings: strictness
        ),

        // The CXoneChat plugin's pure layer (issue 5): CXone wire protocol and the chat state machine.
        .target(
            name: "CXoneCore",
            dependencies: [pluginAPI],
            path: "Plugins/CXoneChat/CXoneCore",
            swiftSettings: strictness
        ),

        // The GMSChat plugin's pure layer (issue 12): Bayeux 1.0 client machine and transports, GMS chat wire,
        // transcript, the chat session.
        .target(
            name: "GMSCore",
            dependencies: [pluginAPI],
            path: "Plugins/GMSChat/GMSCore",
            swiftSettings: strictness
        ),

        // The genesys-messaging plugin's pure layer (issue 35): Genesys Cloud web messaging wire (socket
        // requests and frames, history page, deployment config.json), the file profile and the session machine.
        .target(
            name: "GenesysCore",
            dependencies: [pluginAPI],
            path: "Plugins/GenesysMessaging/GenesysCore",
            swiftSettings: strictness
        ),

        // The KarteActions plugin's pure layer (issue 13): KARTE track wire, the tracking machine (pv ids,
        // batching, retries) and the actions machine (routing, suppress, display limit, resets).
        .target(
            name: "KarteCore",
            dependencies: [pluginAPI],
            path: "Plugins/KarteActions/KarteCore",
            swiftSettings: strictness
        ),

        // The GMSChat channel plugin: a Genesys GMS chat (API v1 or v2), GMSCore's session on the kit's driver.
        .target(
            name: "GMSChat",
            dependencies: [pluginAPI, "GMSCore"],
            path: "Plugins/GMSChat/Channel",
            swiftSettings: strictness
        ),

        // The genesys-messaging channel plugin: Genesys Cloud web messaging, GenesysCore's chat session on the kit's driver.
        .target(
            name: "GenesysMessaging",
            dependencies: [pluginAPI, "GenesysCore"],
            path: "Plugins/GenesysMessaging/Channel",
            swiftSettings: strictness
        ),

        // The KarteActions channel plugin: KARTE's track API and in-app actions, KarteCore's two machines
        // driven on the host's network (gzip through the system zlib).
        .target(
            name: "KarteActions",
            dependencies: [pluginAPI, "KarteCore", "CZlib"],
            path: "Plugins/KarteActions/Channel",
            swiftSettings: strictness
        ),

        // The SIPVoice channel plugin: SIPCore's machines driven over the UDP and TCP flows the host lends
        // it (ChannelHost.network); it links no network library of its own.
        .target(
            name: "SIPVoice",
            dependencies: [pluginAPI, "SIPCore"],
            path: "Plugins/SIPVoice/Channel",
            swiftSettings: strictness
        ),

        // The CXoneChat channel plugin: CXoneCore's chat machine driven over the gateway's WebSocket and the
        // channel's REST endpoints, both on the network the host lends (host.network): no network library of its own.
        .target(
            name: "CXoneChat",
            dependencies: [pluginAPI, "CXoneCore"],
            path: "Plugins/CXoneChat/Channel",
            swiftSettings: strictness
        ),

        // MARK: Tests (Tests/README.md)

        .testTarget(
            name: "GMSCoreTests",
            dependencies: ["GMSCore", pluginAPI],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "GenesysCoreTests",
            dependencies: ["GenesysCore", pluginAPI],
            swiftSettings: strictness
        ),
        // KarteCore's machines, and the KarteActions plugin itself, loaded from libattendant-karte-actions.so
        // on the test kit's network and clock (KarteActionsNetworkTests).
        .testTarget(
            name: "KarteCoreTests",
            dependencies: ["KarteCore", "TestSupport", pluginAPI, .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "AttendantExecutorTests",
            dependencies: ["AttendantExecutor"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "AttendantCoreTests",
            dependencies: [
                "TestSupport",
                "AttendantCore",
                pluginAPI,
                .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
                .product(name: "AttendantCookies", package: "AttendantPluginAPI"),
                // Real HTTP and WebSocket servers on loopback for the url token source and HostNetwork.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "AttendantPluginAPITests",
            dependencies: [pluginAPI, "TestSupport", .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "LoopbackTests",
            dependencies: [
                "Loopback",
                pluginAPI,
                .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
            ],
            swiftSettings: strictness
        ),
        // Shared by test targets: a private dbus-daemon, child processes with bounded waits (BoundedWaits.swift).
        .target(
            name: "TestSupport",
            // AttendantPluginKit's ChildDescriptors: a spawned child gets only its own descriptors. zlib: gzip
            // bodies read and written by the tests' own hand (TestGzip).
            dependencies: [pluginAPI, "CZlib"],
            path: "Tests/TestSupport",
            swiftSettings: strictness
        ),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd", "TestSupport"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "AttendantctlTests",
            dependencies: ["AttendantCLI", "AttendantControl", "Systemd", "TestSupport"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "SIPCoreTests",
            // The test kit's hashes for Digest answers (HostHashingTests checks they are the daemon's).
            dependencies: ["SIPCore", "TestSupport", pluginAPI, .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "CXoneCoreTests",
            dependencies: ["CXoneCore", "TestSupport", pluginAPI],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "SIPVoiceTests",
            dependencies: [
                // The plugin itself is loaded from libattendant-sip-voice.so at run time (the kit's PluginLibrary),
                // on the test kit's in-memory network.
                "SIPCore",
                "TestSupport",
                pluginAPI,
                .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "ContactCenterSimTests",
            dependencies: [
                "ContactCenterSim",
                "TestSupport",
                "SIPCore",
                "CXoneCore",
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictness
        ),
        // The GMSChat plugin, loaded from libattendant-gms-chat.so through the test kit's PluginLibrary.
        .testTarget(
            name: "GMSChatTests",
            dependencies: [pluginAPI, .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")],
            swiftSettings: strictness
        ),
        // The CXoneChat plugin, loaded from libattendant-cxone-chat.so, with the test as CXone's gateway.
        .testTarget(
            name: "CXoneChatTests",
            dependencies: [pluginAPI, .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")],
            swiftSettings: strictness
        ),
        // Plugins on the daemon's real network (HostNetwork) against real peers on loopback: the CXoneChat
        // and GMSChat drivers against the simulator, GMS's Bayeux client against Faye, SIPVoice over TLS to
        // a registrar with a certificate of the test's CA. Plugin unit tests use the test kit's in-memory
        // network and do not link AttendantCore (scripts/test checks); these are allowed to. The plugins
        // are loaded from their .so by the daemon's PluginLoader (linking two plugin targets into the test
        // bundle would clash on their entry symbols).
        .testTarget(
            name: "PluginIntegrationTests",
            dependencies: [
                "AttendantCore",
                "ContactCenterSim",
                "GMSCore",
                "SIPCore",
                "TestSupport",
                "DaemonTestSupport",
                pluginAPI,
                .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
                // The TLS registrar (SIPVoiceTLSTests).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictness
        ),
        // 24 simulated hours of the voice stack (fleet, token manager, SIPVoice, simulator) on a manual clock.
        .testTarget(
            name: "VoiceSoakTests",
            dependencies: [
                "AttendantCore",
                "ContactCenterSim",
                "TestSupport",
                pluginAPI,
                .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),
        // The daemon tests' real peers, one file each: kamailio, baresip and sipp; dbus-daemon, busctl monitor,
        // Xvfb and dunst, python-dbusmock's logind.
        .target(
            name: "DaemonTestSupport",
            dependencies: ["TestSupport"],
            path: "Tests/DaemonTestSupport",
            swiftSettings: strictness
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [pluginAPI, "TestSupport", "DaemonTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictness
        ),
    ]
)

// MARK: Benchmarks (Benchmarks/README.md), only with ATTENDANT_BENCHMARKS=1 in the environment, as Hummingbird
// keeps its benchmarks out of its users' builds: `ATTENDANT_BENCHMARKS=1 swift build -c release
// --scratch-path .build-release`. Tests and the shipped products never depend on them.
let benchmarkTargets: [Target] = [
    // What the benchmarks share: a private bus with a notification server that times each Notify.
    .target(
        name: "AttendantBenchSupport",
        dependencies: ["Systemd"],
        path: "Benchmarks/Support",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-notify-latency",
        dependencies: ["AttendantCore", "AttendantBenchSupport", "Systemd", pluginAPI],
        path: "Benchmarks/NotifyLatency",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-gms-chat-bench",
        dependencies: [
            "GMSChat",
            "AttendantCore",
            "AttendantBenchSupport",
            "ContactCenterSim",
            "Systemd",
            pluginAPI,
            .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
        ],
        path: "Benchmarks/GMSChat",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-genesys-messaging-bench",
        dependencies: [
            "GenesysMessaging",
            "AttendantCore",
            "AttendantBenchSupport",
            "ContactCenterSim",
            "Systemd",
            pluginAPI,
            .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
        ],
        path: "Benchmarks/GenesysMessaging",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-karte-bench",
        dependencies: [
            "KarteActions",
            "AttendantCore",
            "AttendantBenchSupport",
            "ContactCenterSim",
            "Systemd",
            pluginAPI,
            .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
        ],
        path: "Benchmarks/KarteActions",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-invite-latency",
        dependencies: [
            "SIPVoice",
            "SIPCore",
            // The daemon's network and hashes, lent to the channel as attendantd lends them.
            "AttendantCore",
            pluginAPI,
            .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI"),
        ],
        path: "Benchmarks/InviteLatency",
        swiftSettings: strictness
    ),
    // 10,000 supervisor machines on one simulated clock through an outage and a mass resume (issue 34).
    .executableTarget(
        name: "attendant-fleet-model",
        dependencies: ["AttendantCore", "SIPCore", pluginAPI],
        path: "Benchmarks/FleetModel",
        swiftSettings: strictness
    ),
    .executableTarget(
        name: "attendant-cxone-dispatch",
        dependencies: ["CXoneCore", pluginAPI],
        path: "Benchmarks/CXoneDispatch",
        swiftSettings: strictness
    ),
]
if Context.environment["ATTENDANT_BENCHMARKS"] != nil {
    package.targets += benchmarkTargets
}
