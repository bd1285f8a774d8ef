import Foundation
import TestSupport

/// Where `swift build` put the binaries and plugins: beside the test bundle.
package enum BuildProducts {
    package static let directory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent
    }()

    package static var attendantd: String { self.directory + "/attendantd" }

    /// The package root (for fixtures).
    package static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Builds one of the out-of-tree plugin packages (`scripts/fixture-plugins`: "external", or "api-1.2"
    /// for the same plugins against the plugin API at 1.2) and returns the folder with their
    /// libattendant-*.so. `scripts/test` builds them before the tests, so this is quick there; the wait is
    /// bounded and off the cooperative threads.
    package static func fixturePlugins(_ which: String) async throws -> String {
        let built = try await runTool(
            self.packageRoot + "/scripts/fixture-plugins",
            [which],
            environment: ProcessInfo.processInfo.environment,
            within: 900
        )
        guard built.status == 0, let folder = built.stdout.split(separator: "\n").last else {
            throw FixtureError("scripts/fixture-plugins \(which) failed (status \(built.status)):\n\(built.stderr)")
        }
        return String(folder)
    }
}
