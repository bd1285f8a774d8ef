// swift-tools-version:6.1
//
// Channel plugins built OUTSIDE the root package, the way a third party would build them: a package of
// its own that depends only on the plugin API package. Tests use it to check that such plugins load into
// attendantd, and how the daemon reports a plugin whose factory throws.
//
//     swift build --package-path Tests/Fixtures/ExternalPlugins
//
// puts libattendant-echo.so and libattendant-faulty.so into Tests/Fixtures/ExternalPlugins/.build/debug.
// `swift test --package-path Tests/Fixtures/ExternalPlugins` runs EchoTests, which test the plugin with the
// API package's test kit only, as a third party would (`scripts/fixture-plugins test`; scripts/test runs them).
import PackageDescription

/// The same strictness as the root package.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The plugin API's shared library. Plugins link only this: it re-exports Logging, so a plugin must not
/// depend on swift-log itself (that would put a second copy of Logging's types into the process).
let pluginAPI: Target.Dependency = .product(name: "AttendantPluginAPI", package: "AttendantPluginAPI")

/// The test kit: an in-memory host, network, hashing and clock, for a plugin's tests.
let testKit: Target.Dependency = .product(name: "AttendantPluginTestKit", package: "AttendantPluginAPI")

let package = Package(
    name: "ExternalPlugins",
    products: [
        // `.dynamic` and the `attendant-<name>` product name give the file name the daemon looks for:
        // libattendant-<name>.so.
        .library(name: "attendant-echo", type: .dynamic, targets: ["Echo"]),
        .library(name: "attendant-faulty", type: .dynamic, targets: ["Faulty"]),
    ],
    dependencies: [
        .package(path: "../../../Plugins/AttendantPluginAPI")
    ],
    targets: [
        .target(name: "Echo", dependencies: [pluginAPI], swiftSettings: strictness),
        .target(name: "Faulty", dependencies: [pluginAPI], swiftSettings: strictness),
        .testTarget(name: "EchoTests", dependencies: ["Echo", pluginAPI, testKit], swiftSettings: strictness),
    ]
)
