import Foundation

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
}
