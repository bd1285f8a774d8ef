// libFuzzer target for the configuration (DESIGN.md section 7): attendant.toml and its drop-ins, read as
// attendantd reads them. The input is up to four layers split at NUL bytes (TOML text holds none); they
// are written as 0.toml … 3.toml into a folder of the target's own, and ConfigurationSources reads the
// folder as it reads attendant.toml.d: each file parsed by TOMLKit (toml++), then merged in name order
// (ConfigurationTree.merge: tables key by key, [[channel]] by name). The merged tree is then
//   - listed as attendantd --cat-config lists it, and that listing must read back to the same tree
//     (ConfigurationListing promises valid TOML that reads back to the same configuration);
//   - read into AttendantConfiguration (TableReader: every section, channel, token and alert key);
//   - when valid, each channel's plugin settings go to the plugin's own checks, as attendantd
//     --check-config does (ConfigurationCheck): the plugin is loaded by PluginLoader from the build folder
//     and makes its channel from the settings, without starting it.
// Errors are expected; a crash or a failed precondition is a defect. Compiled with the configuration's
// sources, TOMLKit's and toml++'s by scripts/fuzz toml.
import AttendantPluginAPI
import Glibc

/// The folder the layers are written to: one per process under ATTENDANT_FUZZ_SCRATCH (scripts/fuzz gives
/// .build/fuzz/toml/layers), so that libFuzzer's parallel jobs do not share one.
nonisolated(unsafe) private var folder: String = {
    let scratch = getenv("ATTENDANT_FUZZ_SCRATCH").map { String(cString: $0) } ?? "/tmp"
    let path = "\(scratch)/attendant-fuzz-toml-\(getpid())"
    mkdir(scratch, 0o700)
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { fatalError("cannot make \(path): errno \(errno)") }
    return path
}()

/// How many layers the folder holds now.
nonisolated(unsafe) private var layersWritten = 0

/// The plugins found in the build folder (scripts/fuzz passes it as ATTENDANT_FUZZ_PLUGINS).
private let loader = PluginLoader(searchPath: [getenv("ATTENDANT_FUZZ_PLUGINS").map { String(cString: $0) } ?? ".build/debug"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let layers = bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
    for (index, layer) in layers.enumerated() { write(Array(layer), to: "\(folder)/\(index).toml") }
    removeLayers(keeping: layers.count)

    let tree: ConfigurationTree
    do {
        tree = try ConfigurationSources(files: [folder]).tree()
    } catch {
        _ = error.description
        return 0
    }
    precondition(tree.files.count == layers.count, "\(layers.count) layers read as \(tree.files.count) files")

    // attendantd --cat-config: TOML that reads back to the same values.
    let listing = ConfigurationListing(tree).text
    let reread: ConfigurationTree
    do {
        reread = try ConfigurationTree(toml: listing, file: nil)
    } catch {
        preconditionFailure("the listing is not valid TOML: \(error)\n\(listing)")
    }
    precondition(same(.table(reread.root), .table(tree.root)), "the listing reads back to other values:\n\(listing)")

    let configuration: AttendantConfiguration
    do {
        configuration = try AttendantConfiguration(tree: tree)
    } catch {
        precondition(!error.problems.isEmpty, "a configuration error without a problem")
        _ = error.description
        return 0
    }
    checkPlugins(configuration)
    return 0
}

/// attendantd --check-config's plugin step (ConfigurationCheck.run): each channel's plugin makes its channel
/// from the settings and names the keys it did not read. A plugin given as a path is not loaded: any file
/// could be named. (The tls-ca-file step reads a file and parses PEM; it is not the configuration's parser.)
private func checkPlugins(_ configuration: AttendantConfiguration) {
    for channel in configuration.channels where !channel.plugin.contains("/") {
        guard let factory = try? loader.load(channel.plugin).factory else { continue }
        let settings = channel.pluginSettings()
        do {
            _ = try factory.makeChannel(settings: settings, host: CheckingHost(channelName: channel.name))
        } catch let error as SettingsError {
            _ = error.description
        } catch {
            _ = "\(error)"
        }
        _ = settings.unknownKeyErrors(plugin: factory.name).map(\.description)
    }
}

/// The same values, a NaN equal to itself (TOML's nan reads back as a NaN).
private func same(_ a: SettingValue, _ b: SettingValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.table(let x), .table(let y)): x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
    default: a == b
    }
}

private func write(_ bytes: [UInt8], to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(descriptor >= 0, "cannot write \(path): errno \(errno)")
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
        precondition(written > 0, "cannot write \(path): errno \(errno)")
        offset += written
    }
}

/// Removes the layers numbered `kept` and above, left by a longer input.
private func removeLayers(keeping kept: Int) {
    while layersWritten > kept {
        layersWritten -= 1
        unlink("\(folder)/\(layersWritten).toml")
    }
    layersWritten = max(layersWritten, kept)
}

/// A host for channels made only to check their settings, as --check-config's (ConfigurationCheck.swift).
private struct CheckingHost: ChannelHost {
    let channelName: String
    var logger: Logger { Logger(label: "attendant.fuzz", factory: { _ in SwiftLogNoOpLogHandler() }) }
    var clock: any Clock<Duration> { ContinuousClock() }
    var store: any ChannelStore { NoStore() }
    /// A fixed instant: what a check makes of a setting must not depend on when it runs.
    func now() -> UnixTime { UnixTime(secondsSince1970: 1_750_000_000) }
    func currentToken() async -> ChannelToken? { nil }
    func renewToken() async throws -> ChannelToken { throw ChannelError(.configuration, "no tokens while fuzzing") }
    func emit(_ event: ChannelEvent) {}

    struct NoStore: ChannelStore {
        private var error: ChannelError { ChannelError(.configuration, "no store while fuzzing") }
        func value(forKey key: String) async throws -> String? { throw self.error }
        func setValue(_ value: String?, forKey key: String) async throws { throw self.error }
        func allValues() async throws -> [String: String] { throw self.error }
        func enqueue(_ payload: String) async throws -> OutboxItem { throw self.error }
        func pendingOutbox() async throws -> [OutboxItem] { throw self.error }
        func markDelivered(_ id: Int64) async throws { throw self.error }
    }
}
