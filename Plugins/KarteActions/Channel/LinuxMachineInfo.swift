import Glibc
import KarteCore

/// `app_info.system_info` for this Linux machine, read once when the channel starts: what the phone SDKs
/// send about the device, taken from the files Linux has for it. Nothing here identifies the person
/// (no machine id, no host name).
enum LinuxMachineInfo {
    static func systemInfo(bundleID: String, environment: [String: String] = ProcessEnvironment.all()) -> KarteAppInfo.SystemInfo {
        let release = Self.osRelease()
        let (width, height) = Self.screen()
        return KarteAppInfo.SystemInfo(
            osVersion: release["VERSION_ID"] ?? Self.kernelRelease(),
            device: Self.isPortable() ? "laptop" : "desktop",
            model: Self.firstLine("/sys/class/dmi/id/product_name") ?? "",
            bundleID: bundleID,
            language: Self.language(environment),
            screenWidth: width,
            screenHeight: height
        )
    }

    /// `/etc/os-release` as keys and unquoted values.
    static func osRelease() -> [String: String] {
        guard let text = Self.read("/etc/os-release") ?? Self.read("/usr/lib/os-release") else { return [:] }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = line[line.index(after: equals)...]
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            values[String(line[..<equals])] = String(value)
        }
        return values
    }

    static func kernelRelease() -> String {
        var names = utsname()
        uname(&names)
        return withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// BCP 47 from the locale variables (`ja_JP.UTF-8` → `ja-JP`); `en-US` for the C and POSIX locales.
    static func language(_ environment: [String: String]) -> String {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        let base = String(locale.prefix { $0 != "." && $0 != "@" })
        guard !base.isEmpty, base != "C", base != "POSIX" else { return "en-US" }
        return base.replacing("_", with: "-")
    }

    /// SMBIOS chassis types of portable machines (notebook, laptop, sub-notebook, tablet, convertible…).
    static func isPortable() -> Bool {
        guard let type = Self.firstLine("/sys/class/dmi/id/chassis_type").flatMap({ Int($0) }) else { return false }
        return [8, 9, 10, 14, 30, 31, 32].contains(type)
    }

    /// The first mode of the first connected display (`/sys/class/drm/card*-*/modes`), else 0 × 0.
    static func screen() -> (Int, Int) {
        guard let directory = opendir("/sys/class/drm") else { return (0, 0) }
        defer { closedir(directory) }
        var connectors: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("card"), name.contains("-") { connectors.append(name) }
        }
        for connector in connectors.sorted() where Self.firstLine("/sys/class/drm/\(connector)/status") == "connected" {
            guard let mode = Self.firstLine("/sys/class/drm/\(connector)/modes") else { continue }
            let parts = mode.split(separator: "x")
            if parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1].prefix { $0.isNumber }) { return (width, height) }
        }
        return (0, 0)
    }

    static func firstLine(_ path: String) -> String? {
        guard let text = Self.read(path), let line = text.split(separator: "\n").first else { return nil }
        let trimmed = line.trimmingCharacters(in: " \t")
        return trimmed.isEmpty ? nil : String(trimmed)
    }

    /// A small file's text (sysfs and /etc files); nil when it cannot be read.
    static func read(_ path: String, limit: Int = 64 * 1024) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The process's environment as a dictionary.
enum ProcessEnvironment {
    static func all() -> [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") { values[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            pointer += 1
        }
        return values
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
