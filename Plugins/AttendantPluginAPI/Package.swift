// swift-tools-version:6.1
//
// The Attendant plugin API: the one shared library that the daemon and every channel plugin link.
//
// It is a package of its own, with a single `.dynamic` product, so that exactly one copy of its type
// metadata exists at run time (a static copy in the host and another in a plugin makes `as? any
// ChannelPluginFactory` fail silently). It is built with library evolution so that a plugin built
// against an older minor version keeps working with a newer host.
import PackageDescription

let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AttendantPluginAPI",
    products: [
        // The API and the plugin support kit: one shared library, one copy of each in the process.
        .library(name: "AttendantPluginAPI", type: .dynamic, targets: ["AttendantPluginAPI", "AttendantPluginKit"]),
        .library(name: "AttendantPluginTestKit", targets: ["AttendantPluginTestKit"]),
        // The cookie jar both networks keep (the daemon's and the test kit's): static, outside the API.
        .library(name: "AttendantCookies", targets: ["AttendantCookies"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2")
    ],
    // The API's tests live in the root package (Tests/AttendantPluginAPITests) so one `swift test` runs all.
    targets: [
        .target(
            name: "AttendantPluginAPI",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness + [.unsafeFlags(["-enable-library-evolution"])]
        ),
        // What every channel driver needs and no protocol owns (free of NIO): the driver skeleton, timers on
        // the host clock, waiters, an ordered worker, the outbox, backoff, JSON, child-process descriptors.
        .target(
            name: "AttendantPluginKit",
            dependencies: ["AttendantPluginAPI"],
            swiftSettings: strictness + [.unsafeFlags(["-enable-library-evolution"])]
        ),
        .target(
            name: "AttendantPluginTestKit",
            dependencies: ["AttendantPluginAPI", "AttendantCookies"],
            swiftSettings: strictness
        ),
        .target(name: "AttendantCookies", swiftSettings: strictness),
    ]
)
