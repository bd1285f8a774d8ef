import AttendantPluginAPI
import DaemonTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// A plugin built against an older minor version of the plugin API keeps working with this daemon: the
/// API library is built with library evolution, and the loader accepts any older minor version.
@Suite struct PluginCompatibilityTests {
    /// The last commit whose plugin API was 1.2 (the parent of the commit that made it 1.3).
    static let api12 = "9fdb699^"

    /// Builds the out-of-tree fixture plugin `echo` against the plugin API package as it was at 1.2, taken
    /// from the repository's history, and runs it in the daemon built from this checkout.
    @Test func aPluginBuiltForAPI12LoadsAndListens() async throws {
        let scratch = try Scratch()
        let root = BuildProducts.packageRoot
        let old = scratch.path + "/api-1.2"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        let (archived, archiveOutput) = try run(
            "/usr/bin/env",
            ["sh", "-c", "git -C '\(root)' archive '\(Self.api12)' Plugins/AttendantPluginAPI | tar -x -C '\(old)'"]
        )
        try #require(archived == 0, "cannot take the 1.2 API from the history (a shallow clone?): \(archiveOutput)")
        let version = try String(contentsOfFile: old + "/Plugins/AttendantPluginAPI/Sources/AttendantPluginAPI/PluginAPIVersion.swift", encoding: .utf8)
        try #require(version.contains("PluginAPIVersion(major: 1, minor: 2)"), "the commit is not API 1.2")

        // The third party's package, pointed at the old API.
        let package = scratch.path + "/external"
        try FileManager.default.copyItem(atPath: root + "/Tests/Fixtures/ExternalPlugins/Sources", toPath: package + "/Sources")
        // As a plugin of the 1.2 days was written: builtAgainstVersion() came with 1.4.
        for plugin in ["Echo/Echo.swift", "Faulty/Faulty.swift"] {
            let file = package + "/Sources/" + plugin
            try String(contentsOfFile: file, encoding: .utf8)
                .replacingOccurrences(of: "PluginExport.builtAgainstVersion()", with: "PluginExport.apiVersion()")
                .write(toFile: file, atomically: true, encoding: .utf8)
        }
        let manifest = try String(contentsOfFile: root + "/Tests/Fixtures/ExternalPlugins/Package.swift", encoding: .utf8)
            .replacingOccurrences(of: "\"../../../Plugins/AttendantPluginAPI\"", with: "\"\(old)/Plugins/AttendantPluginAPI\"")
        try manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        let build = try await runTool("/usr/bin/env", ["swift", "build", "--package-path", package, "--product", "attendant-echo"], environment: ProcessInfo.processInfo.environment, within: 900)
        let (built, buildOutput) = (build.status, build.stdout + build.stderr)
        try #require(built == 0, "building the fixture against API 1.2 failed:\n\(buildOutput)")
        let binPath = try await runTool("/usr/bin/env", ["swift", "build", "--package-path", package, "--show-bin-path"], environment: ProcessInfo.processInfo.environment, within: 120).stdout
        let plugins = binPath.trimmingCharacters(in: .whitespacesAndNewlines)

        // The plugin says it was built for an older 1.x: a debug build of a plugin for 1.3 or older asks
        // the library, which since 1.4 answers 1.0 for it (before, it answered with its own version).
        let reported = try Self.apiVersion(of: plugins + "/libattendant-echo.so")
        #expect(reported.major == 1 && reported.minor <= 2, "\(reported)")

        let config = try scratch.write(
            "attendant.toml",
            """
            [daemon]
            plugin-path = ["\(plugins)"]

            [[channel]]
            name = "old-plugin"
            plugin = "echo"
            [channel.echo]
            greeting = "hello"
            """
        )
        let notify = try NotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: ["NOTIFY_SOCKET": notify.path])
        let ready = try #require(notify.waitFor { $0.contains("READY=1") }, "no READY=1:\n\(daemon.stderr)")
        #expect(NotifySocket.status(ready)?.hasPrefix("old-plugin listening") == true, "\(ready)\n\(daemon.stderr)")
        #expect(await daemon.waitForLog("[old-plugin] listening"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// Asks a plugin for its API version the way the daemon's loader does.
    static func apiVersion(of path: String) throws -> PluginAPIVersion {
        let handle = try #require(dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), "\(dlerror().map { String(cString: $0) } ?? "")")
        let symbol = try #require(dlsym(handle, "attendant_plugin_api_version"))
        typealias VersionFunction = @convention(c) () -> UInt32
        return PluginAPIVersion(packed: unsafeBitCast(symbol, to: VersionFunction.self)())
    }
}
