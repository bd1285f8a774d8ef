import ArgumentParser
import AttendantCore
import AttendantExecutor
import AttendantPluginAPI
import Glibc
import Journald

/// The command line; `Launch.main()` installs the executor and then runs it.
struct Attendantd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendantd",
        abstract: "Keeps you reachable on contact-centre chat and voice channels.",
        discussion: """
            attendantd runs as a systemd user service (systemctl --user start attendantd), loads a plugin \
            for each [[channel]] and keeps every channel listening.

            Configuration: /etc/attendant/attendant.toml, /etc/attendant/attendant.toml.d/*.toml, then \
            $XDG_CONFIG_HOME/attendant/attendant.toml (~/.config/attendant/attendant.toml) and its \
            attendant.toml.d/*.toml; a later value overrides an earlier one, key by key. --config reads only \
            the files it names. --cat-config shows the merged result and where each value comes from.

            Signals: SIGHUP re-reads the configuration and restarts only the channels whose settings \
            changed; SIGTERM and SIGINT stop every channel gracefully.

            Exit status: 0 after a clean stop; 1 when --check-config finds problems or start-up fails; \
            78 (EX_CONFIG) when the daemon cannot start because of its configuration.
            """,
        version: "attendantd 0.1.0 (plugin API \(PluginAPIVersion.current))"
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read only this configuration file instead of the /etc and ~/.config ones; repeat it to merge several, in order. A folder stands for its *.toml files.",
            valueName: "path"
        )
    )
    var config: [String] = []

    @Flag(name: .long, help: "Check the configuration and every plugin's settings, then exit (0 when valid).")
    var checkConfig = false

    @Flag(name: .long, help: "Print the merged configuration, with the file and line of each value, then exit.")
    var catConfig = false

    @Flag(
        name: .long,
        help:
            "Demo mode: alerts on this terminal, state in a temporary folder, no desktop needed. Without --config, a built-in configuration with a Loopback channel that rings every few seconds. The demo with the voice channel and the contact-centre simulator needs a source checkout: scripts/demo builds and runs it (the package does not include the simulator)."
    )
    var demo = false

    @Flag(name: .long, help: "Also show incoming contacts on standard output.")
    var terminalAlerts = false

    @Option(
        name: .long,
        help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical (overrides log-level in [daemon]).", valueName: "level")
    )
    var logLevel: String?

    func validate() throws {
        if let level = self.logLevel, Logger.Level(rawValue: level) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        var environment = [String: String]()
        for (key, value) in EnvironmentVariables.all() { environment[key] = value }

        let sources: ConfigurationSources? =
            if !self.config.isEmpty {
                ConfigurationSources(files: self.config)
            } else if self.demo {
                nil
            } else {
                ConfigurationSources.layered(environment: environment)
            }
        let configuration: AttendantConfiguration
        do throws(ConfigurationError) {
            let tree: ConfigurationTree
            if let sources {
                tree = try sources.tree()
            } else {
                tree = try ConfigurationTree(toml: DemoConfiguration.toml, file: nil)
            }
            if self.catConfig {
                Self.printOut(ConfigurationListing(tree).text, terminator: "")
                return
            }
            configuration = try AttendantConfiguration(tree: tree)
        } catch {
            Self.printError("\(error)")
            if self.config.isEmpty && !self.demo, let file = sources?.userFile, error.problems.first?.code == .noConfiguration {
                let example = Paths.installedExampleConfiguration() ?? "examples/attendant.toml in the source"
                Self.printError("Create \(file) from \(example), or try the demo: attendantd --demo")
            }
            throw ExitCode(self.checkConfig || self.catConfig ? 1 : 78)
        }

        if self.checkConfig {
            try self.check(configuration, environment: environment)
            return
        }

        let level = self.logLevel.flatMap(Logger.Level.init(rawValue:)) ?? configuration.daemon.logLevel
        LoggingSystem.bootstrap(SystemdLogging.handlerFactory(identifier: "attendantd", level: level, environment: environment))
        let logger = Logger(label: "attendantd")
        if case .fallback(let reason) = Launch.installation {
            logger.warning(
                "attendantd runs on Swift's default executors: \(reason). Expect a wake-up every second while idle (libdispatch's pool monitor); the toolchain's custom-executor SPI may have changed, see Sources/AttendantExecutor."
            )
        }

        var options = AttendantDaemon.Options(configurationSources: sources, configuration: configuration, environment: environment)
        options.terminalAlerts = self.terminalAlerts || self.demo
        options.version = Self.configuration.version
        options.configurationReadCheck = .attendantd
        options.clock = TaskRuntime.clock
        options.desktopIsOptional = self.demo
        if self.demo {
            let directory = try DemoConfiguration.makeStateDirectory()
            options.stateDirectory = directory
            options.environment["XDG_RUNTIME_DIR"] = nil  // the demo's lock lives in its own folder
            let what = sources.map { _ in "with \(configuration.files.joined(separator: ", "))" } ?? "a Loopback channel rings every 4 seconds"
            Self.printOut("Attendant demo: \(what). State in \(directory). Ctrl-C stops.")
        }
        do {
            try await AttendantDaemon(options: options, logger: logger).run()
        } catch let error as InstanceLockError {
            Self.printError("\(error)")
            throw ExitCode(1)
        } catch let error as DaemonStartError {
            Self.printError("\(error)")
            throw ExitCode(1)
        }
    }

    private func check(_ configuration: AttendantConfiguration, environment: [String: String]) throws {
        let loader = PluginLoader(
            searchPath: PluginLoader.defaultSearchPath(configured: configuration.daemon.pluginPath, environment: environment)
        )
        let check = ConfigurationCheck(configuration: configuration, loader: loader, environment: environment)
        let problems = check.run()
        let name = configuration.files.isEmpty ? "the built-in demo configuration" : configuration.files.joined(separator: ", ")
        if problems.isEmpty {
            Self.printOut("\(name): valid (\(check.summary))")
            return
        }
        for problem in problems { Self.printError(problem.description) }
        Self.printError("\(name): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
        throw ExitCode(1)
    }

    static func printError(_ message: String) { self.write(message, to: STDERR_FILENO) }

    static func printOut(_ message: String, terminator: String = "\n") { self.write(message, to: STDOUT_FILENO, terminator: terminator) }

    private static func write(_ message: String, to fd: Int32, terminator: String = "\n") {
        let line = message + terminator
        _ = line.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
    }
}

enum EnvironmentVariables {
    static func all() -> [(String, String)] {
        var result: [(String, String)] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
            }
            pointer += 1
        }
        return result
    }
}
