import AttendantPluginAPI
import Testing

struct PluginAPIVersionTests {
    /// The version the library reports and the one emitted into every plugin built against it are bumped
    /// together (they are two literals; a plugin built now must claim the library's version).
    @Test func aPluginBuiltNowClaimsTheLibrarysVersion() {
        #expect(PluginAPIVersion.builtAgainst == PluginAPIVersion.current)
        #expect(PluginExport.builtAgainstVersion() == PluginAPIVersion.current.packed)
    }

    @Test func packsMajorAboveMinor() {
        let version = PluginAPIVersion(major: 1, minor: 5)
        #expect(version.packed == 0x0001_0005)
        #expect(PluginAPIVersion(packed: 0x0002_0001) == PluginAPIVersion(major: 2, minor: 1))
        #expect(PluginAPIVersion(major: 1, minor: 4) < version)
        #expect(version.description == "1.5")
    }
}
