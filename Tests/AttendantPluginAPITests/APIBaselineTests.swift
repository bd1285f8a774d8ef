import Foundation
import TestSupport
import Testing

/// `scripts/check-api`, the gate `scripts/test` runs: the built plugin API keeps every declaration of its
/// recorded baseline, and a baseline the library no longer matches fails with the declaration named.
@Suite struct APIBaselineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    /// The recorded interfaces of the library's two modules.
    static let baseline = root + "/Plugins/AttendantPluginAPI/api"
    /// The modules of the build this test binary belongs to (`.build/debug/Modules`).
    static var modules: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path + "/Modules"
    }

    func check(_ baseline: String) async throws -> (Int32, String) {
        try await run("/bin/bash", [Self.root + "/scripts/check-api", "--baseline", baseline, "--modules", Self.modules], within: 120)
    }

    /// A baseline folder with `edit` applied to the recorded interface of `module`, the other as recorded.
    func baseline(_ module: String = "AttendantPluginAPI", _ edit: (String) -> String) throws -> String {
        let folder = try makeTemporaryFolder("attendant-api-baseline")
        for name in ["AttendantPluginAPI", "AttendantPluginKit"] {
            let text = try String(contentsOfFile: "\(Self.baseline)/\(name).swiftinterface", encoding: .utf8)
            let edited = name == module ? edit(text) : text
            if name == module { #expect(edited != text, "the edit changed nothing") }
            try edited.write(toFile: "\(folder)/\(name).swiftinterface", atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func theLibraryKeepsItsRecordedAPI() async throws {
        let (status, output) = try await self.check(Self.baseline)
        #expect(status == 0, "\(output)")
    }

    /// A declaration the baseline has and the library lost: a plugin that calls it would not load.
    @Test func aRemovedDeclarationFailsAndIsNamed() async throws {
        let file = try self.baseline {
            $0.replacingOccurrences(
                of: "public struct ChannelSettings : Swift.Sendable {",
                with: "public struct ChannelSettings : Swift.Sendable {\n  public func retiredAccessor(_ key: Swift.String) -> Swift.Int?"
            )
        }
        let (status, output) = try await self.check(file)
        #expect(status == 1, "\(output)")
        #expect(output.contains("Func ChannelSettings.retiredAccessor(_:) has been removed"), "\(output)")
    }

    /// The kit is in the same library: a declaration it lost fails too.
    @Test func aDeclarationTheKitLostFails() async throws {
        let file = try self.baseline("AttendantPluginKit") {
            $0.replacingOccurrences(
                of: "@frozen public struct Backoff : Swift.Sendable, Swift.Hashable {",
                with: "@frozen public struct Backoff : Swift.Sendable, Swift.Hashable {\n  public func retiredDelay() -> Swift.Duration"
            )
        }
        let (status, output) = try await self.check(file)
        #expect(status == 1, "\(output)")
        #expect(output.contains("AttendantPluginKit's api differs"), "\(output)")
        #expect(output.contains("Func Backoff.retiredDelay() has been removed"), "\(output)")
    }

    /// A declaration whose type changed: a plugin compiled against the old type would misread it.
    @Test func aChangedTypeFails() async throws {
        let file = try self.baseline {
            $0.replacingOccurrences(of: "public let scope: Swift.String", with: "public let scope: Swift.Int")
        }
        let (status, output) = try await self.check(file)
        #expect(status == 1, "\(output)")
        #expect(output.contains("ChannelSettings.scope"), "\(output)")
    }
}
