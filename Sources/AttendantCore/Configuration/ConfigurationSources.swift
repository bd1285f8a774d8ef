import Glibc

/// Which files make the configuration, in the order they are merged (later values win, key by key).
///
/// By default, the administrator's files and then the user's, as systemd reads its own drop-ins:
///
/// 1. `/etc/attendant/attendant.toml`
/// 2. `/etc/attendant/attendant.toml.d/*.toml`, sorted by name
/// 3. `$XDG_CONFIG_HOME/attendant/attendant.toml` (`~/.config/attendant/attendant.toml`)
/// 4. `$XDG_CONFIG_HOME/attendant/attendant.toml.d/*.toml`, sorted by name
///
/// Any of them may be missing; all missing is an error. `attendantd --config PATH` (one or more) reads
/// only the files given, each of which must exist; a folder stands for its `*.toml` files.
package struct ConfigurationSources: Sendable, Equatable {
    /// One place that is read: a file, or a folder whose `*.toml` files are read in name order.
    package struct Entry: Sendable, Equatable {
        package var path: String
        package var isFolder: Bool
        /// A required entry that is missing is an error; an optional one is skipped.
        package var isRequired: Bool
    }

    package var entries: [Entry]

    /// The folder of the administrator's files.
    package static let systemDirectory = "/etc/attendant"

    /// Exactly `paths`, in order; a path that is a folder stands for its `*.toml` files.
    package init(files paths: [String]) {
        self.entries = paths.map { path in
            var info = stat()
            let isFolder = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            return Entry(path: path, isFolder: isFolder, isRequired: true)
        }
    }

    /// The administrator's layer under `systemDirectory`, then the user's under `$XDG_CONFIG_HOME`.
    package static func layered(environment: [String: String], systemDirectory: String = Self.systemDirectory) -> ConfigurationSources {
        let user = Paths.defaultConfigurationFile(environment: environment)
        let system = systemDirectory + "/attendant.toml"
        var sources = ConfigurationSources(files: [])
        sources.entries = [system, user].flatMap { file in
            [Entry(path: file, isFolder: false, isRequired: false), Entry(path: file + ".d", isFolder: true, isRequired: false)]
        }
        return sources
    }

    /// The user's own file: where the daemon suggests writing a configuration when there is none.
    package var userFile: String? {
        self.entries.last { !$0.isFolder }?.path
    }

    /// What is searched, for messages: `/etc/attendant/attendant.toml, /etc/attendant/attendant.toml.d/*.toml, …`.
    package var searched: String {
        self.entries.map { $0.isFolder ? $0.path + "/*.toml" : $0.path }.joined(separator: ", ")
    }

    /// The files that exist now, in merge order.
    ///
    /// - Throws: ``ConfigurationError`` (`.unreadable`) for a required file that is missing, a folder
    ///   that cannot be listed, or when no file at all exists.
    package func files() throws(ConfigurationError) -> [String] {
        var files: [String] = []
        var problems: [ConfigurationError.Problem] = []
        for entry in self.entries {
            if entry.isFolder {
                switch Self.tomlFiles(in: entry.path) {
                case .success(let names): files += names.map { entry.path + "/" + $0 }
                case .failure(let error) where error.errno == ENOENT && !entry.isRequired: continue
                case .failure(let error):
                    problems.append(
                        .init(.unreadable, "\(entry.path): cannot list the configuration folder: \(String(cString: strerror(error.errno)))")
                    )
                }
            } else {
                var info = stat()
                if stat(entry.path, &info) != 0, errno == ENOENT || errno == ENOTDIR, !entry.isRequired { continue }
                files.append(entry.path)
            }
        }
        guard problems.isEmpty else { throw ConfigurationError(problems) }
        guard !files.isEmpty else {
            throw ConfigurationError(.init(.noConfiguration, "no configuration: none of \(self.searched) exists"))
        }
        return files
    }

    /// Every file read and merged.
    ///
    /// - Throws: ``ConfigurationError`` with every file that cannot be read or is not valid TOML.
    package func tree() throws(ConfigurationError) -> ConfigurationTree {
        var tree = ConfigurationTree()
        var problems: [ConfigurationError.Problem] = []
        for file in try self.files() {
            do {
                tree.merge(try ConfigurationTree(toml: try FileContents.read(file), file: file))
            } catch let error as ConfigurationError {
                problems += error.problems
            } catch {
                problems.append(.init(.unreadable, "\(file): cannot read the configuration: \(error)"))
            }
        }
        guard problems.isEmpty else { throw ConfigurationError(problems) }
        return tree
    }

    /// The names of the `*.toml` files in `folder` (not hidden ones), sorted by their bytes as systemd
    /// sorts drop-ins, so `10-site.toml` comes before `20-team.toml`.
    private static func tomlFiles(in folder: String) -> Result<[String], SystemError> {
        guard let directory = opendir(folder) else { return .failure(SystemError("cannot open", folder)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".toml"), !name.hasPrefix(".") else { continue }
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            names.append(name)
        }
        return .success(names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }
}
