import AttendantPluginAPI
import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Every way a plugin can fail, through the real daemon: each gets its own message naming the file and
/// the reason, and the other channels keep running.
@Suite(.serialized) struct PluginFailureTests {
    /// A C shared library: `symbols` decides whether it looks like a plugin.
    static func cLibrary(_ scratch: Scratch, name: String, source: String) async throws -> String {
        let c = try scratch.write("\(name).c", source)
        let so = scratch.path + "/plugins/libattendant-\(name).so"
        try FileManager.default.createDirectory(atPath: scratch.path + "/plugins", withIntermediateDirectories: true)
        let (status, output) = try await run("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", so, c])
        #expect(status == 0, "cc failed: \(output)")
        return so
    }

    @Test func eachFailureHasItsOwnMessageAndTheOtherChannelsRun() async throws {
        let scratch = try Scratch()
        let external = try await BuildProducts.fixturePlugins("external")
        let notPlugin = try await Self.cLibrary(scratch, name: "plain", source: "int plain(void) { return 1; }\n")
        let wrongAPI = try await Self.cLibrary(
            scratch,
            name: "future",
            source: """
                unsigned attendant_plugin_api_version(void) { return 2u << 16; }
                void *attendant_plugin_factory(void) { return 0; }
                """
        )
        try "not an ELF file".write(toFile: scratch.path + "/plugins/libattendant-text.so", atomically: true, encoding: .utf8)
        let config = try scratch.write(
            "attendant.toml",
            """
            [daemon]
            plugin-path = ["\(scratch.path)/plugins", "\(external)"]

            [[channel]]
            name = "good"
            plugin = "loopback"

            [[channel]]
            name = "third-party"
            plugin = "echo"
            [channel.echo]
            greeting = "hello"

            [[channel]]
            name = "missing"
            plugin = "nosuch"

            [[channel]]
            name = "plain"
            plugin = "plain"

            [[channel]]
            name = "text"
            plugin = "text"

            [[channel]]
            name = "future"
            plugin = "future"

            [[channel]]
            name = "faulty"
            plugin = "faulty"
            """
        )
        let notify = try NotifySocket(path: scratch.path + "/notify")
        let daemon = try DaemonProcess(["--config", config], scratch: scratch, environment: ["NOTIFY_SOCKET": notify.path])
        let ready = try #require(await notify.waitFor { $0.contains("READY=1") }, "no READY=1:\n\(daemon.stderr)")
        let status = try #require(NotifySocket.status(ready))
        #expect(status.hasPrefix("good listening; third-party listening; missing failed (plugin \"nosuch\" not found"))
        #expect(status.contains("faulty failed (plugin faulty could not make the channel"))

        // READY=1 comes over the notify socket; the log lines before it may still be in the pipe.
        #expect(await daemon.waitForLog("[good] listening"))
        #expect(await daemon.waitForLog("[third-party] listening"))
        #expect(await daemon.waitForLog("[faulty] cannot start"))
        let log = daemon.stderr
        let folders = "\(scratch.path)/plugins, \(external), "
        #expect(log.contains("[missing] cannot start: plugin \"nosuch\" not found: no libattendant-nosuch.so in \(folders)"))
        #expect(log.contains("install it there or add its folder to plugin-path in [daemon]"))
        #expect(log.contains("[plain] cannot start: \(notPlugin) is not an Attendant plugin: it does not export attendant_plugin_api_version()"))
        #expect(log.contains("[text] cannot start: plugin \(scratch.path)/plugins/libattendant-text.so cannot be loaded: "))
        #expect(
            log.contains(
                "[future] cannot start: plugin \(wrongAPI) was built for plugin API 2.0, but this attendantd provides \(PluginAPIVersion.current); rebuild the plugin against AttendantPluginAPI 1.x"
            )
        )
        #expect(
            log.contains("[faulty] cannot start: plugin faulty could not make the channel: faulty: cannot open /dev/attendant-faulty: no such device")
        )
        #expect(log.contains("[good] listening"))
        #expect(log.contains("[third-party] listening"))

        daemon.signal(SIGTERM)
        await daemon.expectCleanExit()
    }

    @Test func pluginsOthersCanWriteAreRefused() async throws {
        let scratch = try Scratch()
        let open = scratch.path + "/open-plugins"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: BuildProducts.directory + "/libattendant-loopback.so", toPath: open + "/libattendant-loopback.so")
        chmod(open, 0o777)
        let config = try scratch.write(
            "attendant.toml",
            "[[channel]]\nname = \"desk\"\nplugin = \"\(open)/libattendant-loopback.so\"\n"
        )
        let (status, output) = try await run(BuildProducts.attendantd, ["--config", config, "--check-config"])
        #expect(status == 1)
        #expect(
            output.contains(
                "plugin \(open)/libattendant-loopback.so refused: its folder \(open) can be written by other users (mode 777); run chmod go-w \(open)"
            )
        )
    }
}
