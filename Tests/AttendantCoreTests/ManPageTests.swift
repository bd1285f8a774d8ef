import AttendantCore
import AttendantPluginAPI
import AttendantPluginTestKit
import Foundation
import TestSupport
import Testing

/// attendant.toml(5) (`docs/man/attendant.toml.5`) against the code that reads the configuration: each
/// table's section documents every key the daemon or the table's plugin asks for, once, and no other key;
/// and the page is mdoc that mandoc and man (as lintian runs it) read without a word of complaint.
@Suite struct ManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let page = root + "/docs/man/attendant.toml.5"
    /// Where `swift build` put the plugins: beside the test bundle.
    static let buildFolder: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent
    }()

    /// The smallest settings each plugin makes a channel with, so that it reads all its keys. A plugin
    /// without an entry here is made with an empty table.
    static let minimalSettings: [String: [String: SettingValue]] = [
        "sip-voice": ["registrar": .string("sip:pbx.example.org;transport=tcp"), "address-of-record": .string("sip:alice@example.org")],
        "cxone-chat": ["brand-id": .integer(1386), "channel-id": .string("chat_51eafc1d"), "region": .string("eu1")],
        "gms-chat": ["url": .string("https://gms.example.com:8443/genesys")],
        "genesys-messaging": ["deployment-id": .string("5e1f0c4a-7d2b-4c3e-9f10-2a6b8c0d1e35"), "domain": .string("mypurecloud.com")],
    ]

    /// The keys the page documents, by table (`daemon`, `channel`, `channel.sip-voice`, …): each `.It Cm
    /// key` of the outermost list in a subsection named for the table (`.Ss [daemon]`, `.Ss [[channel]]`,
    /// `.Ss [channel.sip-voice]`), in order. Lists nested in an item (a key's values) are not keys.
    static func documentedKeys(_ text: String) -> [String: [String]] {
        var keys: [String: [String]] = [:]
        var table: String?
        var depth = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(separator: " ")
            switch words.first {
            case ".Sh", ".Ss":
                // `\&` keeps mandoc from reading the closing `]` as punctuation.
                let heading = words.dropFirst().joined(separator: " ").replacingOccurrences(of: "\\&", with: "")
                table = heading.hasPrefix("[") ? heading.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) : nil
                if let table { keys[table, default: []] += [] }
                depth = 0
            case ".Bl": depth += 1
            case ".El": depth -= 1
            case ".It" where table != nil && depth == 1 && words.count >= 3 && words[1] == "Cm":
                keys[table!, default: []].append(String(words[2]))
            default: break
            }
        }
        return keys
    }

    static func documented() throws -> [String: [String]] {
        Self.documentedKeys(try String(contentsOfFile: Self.page, encoding: .utf8))
    }

    static func describe(_ keys: some Collection<String>) -> String { keys.sorted().joined(separator: ", ") }

    /// The keys written more than once.
    static func repeated(_ keys: [String]) -> Set<String> {
        Set(Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys)
    }

    @Test func theDaemonsTablesAndKeysAreDocumentedOnceAndNoOthers() throws {
        let documented = try Self.documented()
        let known = AttendantConfiguration.knownKeys
        let tables = try #require(known[""])
        #expect(
            Set(documented.keys.filter { !$0.hasPrefix("channel.") }) == Set(tables),
            "attendant.toml(5) has sections for \(Self.describe(documented.keys)); the daemon reads the tables \(Self.describe(tables))"
        )
        for table in tables {
            let read = known[table] ?? []
            let written = documented[table] ?? []
            let header = table == "channel" ? "[[channel]]" : "[\(table)]"
            #expect(
                Set(read).subtracting(written).isEmpty,
                "attendant.toml(5) does not document \(Self.describe(Set(read).subtracting(written))) in \(header)"
            )
            #expect(
                Set(written).subtracting(read).isEmpty,
                "attendant.toml(5) documents \(Self.describe(Set(written).subtracting(read))) in \(header), which the daemon does not read"
            )
            #expect(Self.repeated(written).isEmpty, "attendant.toml(5) documents \(Self.describe(Self.repeated(written))) twice in \(header)")
        }
    }

    @Test func eachPluginsKeysAreDocumentedOnceAndNoOthers() throws {
        let documented = try Self.documented()
        let plugins = try FileManager.default.contentsOfDirectory(atPath: Self.buildFolder)
            .filter { $0.hasPrefix("libattendant-") && $0.hasSuffix(".so") }
            .map { String($0.dropFirst("libattendant-".count).dropLast(".so".count)) }
            .sorted()
        #expect(plugins.count >= 5, "plugins built in \(Self.buildFolder): \(plugins)")
        #expect(
            Set(documented.keys.filter { $0.hasPrefix("channel.") }) == Set(plugins.map { "channel.\($0)" }),
            "attendant.toml(5) has sections for \(Self.describe(documented.keys)); the plugins built are \(Self.describe(plugins))"
        )
        let loader = PluginLoader(searchPath: [Self.buildFolder])
        for plugin in plugins {
            let factory = try loader.load(plugin).factory
            #expect(factory.name == plugin)
            let settings = ChannelSettings(Self.minimalSettings[plugin] ?? [:], scope: "[channel.\(plugin)]")
            // The plugin reads its settings as it makes the channel, as `attendantd --check-config` has it do.
            _ = try factory.makeChannel(settings: settings, host: InMemoryChannelHost(channelName: "man"))
            let read = settings.knownKeys
            let written = documented["channel.\(plugin)"] ?? []
            #expect(
                read.subtracting(written).isEmpty,
                "attendant.toml(5) does not document \(Self.describe(read.subtracting(written))) in [channel.\(plugin)]"
            )
            #expect(
                Set(written).subtracting(read).isEmpty,
                "attendant.toml(5) documents \(Self.describe(Set(written).subtracting(read))) in [channel.\(plugin)], which the plugin does not read"
            )
            #expect(
                Self.repeated(written).isEmpty,
                "attendant.toml(5) documents \(Self.describe(Self.repeated(written))) twice in [channel.\(plugin)]"
            )
        }
    }

    /// mandoc's linter, every level of message, style included, except that attendantd(1) and
    /// attendantctl(1) are not installed where the tests run (they are generated when packaging) and
    /// notes about the machine's own mandoc.db.
    @Test func mandocFindsNothingToSay() async throws {
        let (_, output) = try await run("/usr/bin/mandoc", ["-T", "lint", Self.page])
        let messages = output.split(separator: "\n").filter { line in
            !line.contains("STYLE: referenced manual not found: Xr attendantd 1")
                && !line.contains("STYLE: referenced manual not found: Xr attendantctl 1") && !line.contains("mandoc.db")
        }
        #expect(messages.isEmpty, "mandoc -T lint \(Self.page):\n\(messages.joined(separator: "\n"))")
    }

    /// man with groff, as lintian's manpage-has-errors-from-man runs it.
    @Test func manRendersItWithoutAWarning() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["MANROFFSEQ"] = ""
        environment["MANWIDTH"] = "80"
        let (status, stdout, stderr) = try await runTool(
            "/usr/bin/man",
            ["--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", Self.page],
            environment: environment
        )
        #expect(status == 0 && stderr.isEmpty, "man --warnings -l \(Self.page):\n\(stderr)")
        #expect(stdout.contains("attendant.toml"))
    }
}
