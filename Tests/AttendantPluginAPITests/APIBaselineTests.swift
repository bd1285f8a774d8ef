import Foundation
import TestSupport
import Testing

/// `scripts/check-api`, the gate `scripts/test` runs: the built plugin API keeps every declaration of its
/// recorded baseline, and a baseline the library no longer matches fails with the declaration named.
@Suite struct APIBaselineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let baseline = root + "/Plugins/AttendantPluginAPI/api/AttendantPluginAPI.swiftinterface"
    /// The modules of the build this test binary belongs to (`.build/debug/Modules`).
    static var modules: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path + "/Modules"
    }

    func check(_ baseline: String) async throws -> (Int32, String) {
        try await run("/bin/bash", [Self.root + "/scripts/check-api", "--baseline", baseline, "--modules", Self.modules], within: 120)
    }

    /// A baseline with `edit` applied to the recorded one, in a temporary folder.
    func baseline(_ edit: (String) -> String) throws -> String {
        let folder = try makeTemporaryFolder("attendant-api-baseline")
        let file = folder + "/AttendantPluginAPI.swiftinterface"
        let text = try String(contentsOfFile: Self.baseline, encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text, "the edit changed nothing")
        try edited.write(toFile: file, atomically: true, encoding: .utf8)
        return file
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
