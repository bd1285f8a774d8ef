import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// Every configuration in `examples/` passes the real `attendantd --check-config`, with the files the
/// examples say the user provides (the PBX's CA) and nothing else, so a copied example starts.
@Suite struct ExampleConfigurationTests {
    static let folder = BuildProducts.packageRoot + "/examples"

    /// `HOME` for `~/`: the files the examples' comments ask the user for.
    static func home() async throws -> (scratch: Scratch, environment: [String: String]) {
        let scratch = try Scratch()
        let authority = try await TestCertificateAuthority("PBX CA")
        let pem = try String(contentsOfFile: authority.certificateFile, encoding: .utf8)
        _ = try scratch.write(".config/attendant/pbx-ca.pem", pem)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = scratch.path
        environment["CREDENTIALS_DIRECTORY"] = nil
        return (scratch, environment)
    }

    @Test func everyExamplePassesTheChecker() async throws {
        let examples = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".toml") }.sorted()
        #expect(Set(["attendant.toml", "pbx.toml", "twilio-sip-domain.toml"]).isSubset(of: examples), "\(examples)")
        let (scratch, environment) = try await Self.home()
        for example in examples {
            let (status, output) = try await run(
                BuildProducts.attendantd,
                ["--check-config", "--config", Self.folder + "/" + example],
                environment: environment
            )
            #expect(status == 0, "examples/\(example):\n\(output)")
            #expect(output.contains("examples/\(example): valid ("), "\(output)")
        }
        withExtendedLifetime(scratch) {}
    }

    @Test func thePBXExampleNeedsTheCAItSaysTheUserProvides() async throws {
        let scratch = try Scratch()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = scratch.path
        let (status, output) = try await run(
            BuildProducts.attendantd,
            ["--check-config", "--config", Self.folder + "/pbx.toml"],
            environment: environment
        )
        #expect(status == 1, "\(output)")
        #expect(
            output.contains("key \"tls-ca-file\" in [[channel]] \"office\": cannot read \(scratch.path)/.config/attendant/pbx-ca.pem"),
            "\(output)"
        )
    }
}
