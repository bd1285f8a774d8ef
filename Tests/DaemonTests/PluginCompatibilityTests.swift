import AttendantPluginAPI
import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// A plugin built against an older minor version of the plugin API keeps working with this daemon: the
/// API library is built with library evolution, and the loader accepts any older minor version.
@Suite struct PluginCompatibilityTests {
    /// Builds the out-of-tree fixture plugin `echo` against the plugin API package as it was at 1.2, taken
    /// from the repository's history (`scripts/fixture-plugins api-1.2`), and runs it in the daemon built
    /// from this checkout.
    @Test func aPluginBuiltForAPI12LoadsAndListens() async throws {
        let scratch = try Scratch()
        let plugins = try await BuildProducts.fixturePlugins("api-1.2")

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
        let ready = try #require(await notify.waitFor { $0.contains("READY=1") }, "no READY=1:\n\(daemon.stderr)")
        #expect(NotifySocket.status(ready)?.hasPrefix("old-plugin listening") == true, "\(ready)\n\(daemon.stderr)")
        #expect(await daemon.waitForLog("[old-plugin] listening"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    /// Asks a plugin for its API version the way the daemon's loader does.
    static func apiVersion(of path: String) throws -> PluginAPIVersion {
        let handle = try #require(dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), "\(dlerror().map { String(cString: $0) } ?? "")")
        let symbol = try #require(dlsym(handle, "attendant_plugin_api_version"))
        typealias VersionFunction = @convention(c) () -> UInt32
        return PluginAPIVersion(packed: unsafeBitCast(symbol, to: VersionFunction.self)())
    }
}
