package import AttendantPluginAPI
import Synchronization

/// Opens the links channels ask for (``AttendantPluginAPI/ChannelHost/openURL(_:)``: an in-app action's
/// buttons) by one policy for the whole daemon, the desktop counterpart of the SDKs' `shouldOpenURL`:
///
/// 1. The scheme must be `http`, `https` or one of `[links] schemes`; anything else is refused and logged
///    (a campaign must not be able to start `file:`, `javascript:` or a custom handler).
/// 2. A URL handler a D-Bus client registered (``ControlInterface`` `SetURLHandler`) is asked
///    `ShouldOpenURL(s url) → b`; false means it took care of the link ("claimed"). No handler, an error
///    or no answer within `[links] handler-timeout` means "open it", as the SDKs' default.
/// 3. `[links] command`, when set, may claim the link the same way (exit status 0 = claimed, 1 = not).
/// 4. Otherwise `[links] opener` (`xdg-open`) opens it.
///
/// Every outcome is logged with the channel; a URL is logged without its query and fragment, which may
/// carry a campaign's personal data.
package final class LinkOpener: Sendable {
    /// Asks a registered D-Bus URL handler; nil when it did not answer (any error, or the time limit).
    package typealias AskHandler = @Sendable (_ busName: String, _ url: String, _ timeout: Duration) async -> Bool?

    private struct State {
        var settings: LinkSettings
        var handler: String?
    }

    private let state: Mutex<State>
    private let askHandler: AskHandler?
    private let logger: Logger

    package init(settings: LinkSettings, askHandler: AskHandler?, logger: Logger) {
        self.state = Mutex(State(settings: settings))
        self.askHandler = askHandler
        self.logger = logger
    }

    /// A reloaded `[links]` table; the registered handler stays.
    package func update(_ settings: LinkSettings) {
        self.state.withLock { $0.settings = settings }
    }

    /// The D-Bus name asked before every link (empty: none).
    package func setHandler(_ busName: String) {
        self.state.withLock { $0.handler = busName.isEmpty ? nil : busName }
        self.logger.info(busName.isEmpty ? "no URL handler is registered any more" : "URL handler registered: \(busName)")
    }

    package var handler: String? { self.state.withLock { $0.handler } }

    /// Opens `url` for `channel` by the policy above.
    package func open(_ url: String, channel: String) async -> LinkOpenOutcome {
        let (settings, handler) = self.state.withLock { ($0.settings, $0.handler) }
        let outcome = await self.decide(url, settings: settings, handler: handler)
        let metadata: Logger.Metadata = ["channel": "\(channel)", "url": "\(Self.redacted(url))"]
        switch outcome {
        case .opened, .claimed:
            self.logger.info("link \(outcome.name) by \(outcome.detail)", metadata: metadata)
        case .refused(let reason):
            self.logger.warning("link refused: \(reason)", metadata: metadata)
        default:
            self.logger.warning("link not opened: \(outcome.detail)", metadata: metadata)
        }
        return outcome
    }

    private func decide(_ url: String, settings: LinkSettings, handler: String?) async -> LinkOpenOutcome {
        guard let scheme = Self.scheme(of: url) else {
            return .refused("\"\(Self.redacted(url))\" is not an absolute URL")
        }
        guard settings.allowedSchemes.contains(scheme) else {
            let allowed = settings.allowedSchemes.joined(separator: ", ")
            return .refused("the scheme \"\(scheme)\" is not allowed (allowed: \(allowed); add it to [links] schemes to open such links)")
        }
        guard !url.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            return .refused("the URL contains control characters")
        }
        if let handler, let ask = self.askHandler {
            switch await ask(handler, url, settings.handlerTimeout) {
            case false?:
                return .claimed(by: "the URL handler \(handler)")
            case nil:
                self.logger.notice("the URL handler \(handler) gave no answer within \(settings.handlerTimeout); opening the link")
            case true?:
                break
            }
        }
        if let command = settings.command {
            let arguments = Self.arguments(command, url: url)
            switch await Self.run(arguments, within: settings.handlerTimeout) {
            case .exited(0):
                return .claimed(by: "the [links] command \(command[0])")
            case .exited(1):
                break
            case .still:
                return .claimed(by: "the [links] command \(command[0]) (still running after \(settings.handlerTimeout))")
            case let other:
                self.logger.warning("the [links] command \(command[0]) failed (\(other)); opening the link")
            }
        }
        let arguments = Self.arguments(settings.opener, url: url)
        switch await Self.run(arguments, within: settings.handlerTimeout) {
        case .exited(0), .still:
            return .opened(by: settings.opener[0])
        case let other:
            return .failed("\(settings.opener[0]) \(other)")
        }
    }

    // MARK: Pieces

    /// The scheme, lower case, of an absolute URL (`scheme:` then anything); nil when there is none.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else { return nil }
        let scheme = url[..<colon]
        guard scheme.first!.isLetter, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return nil
        }
        return scheme.lowercased()
    }

    /// The URL without its query and fragment, for logs.
    static func redacted(_ url: String) -> String {
        let cut = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        let kept = String(url[..<cut].prefix(200))
        return cut == url.endIndex ? kept : kept + "…"
    }

    /// `{url}` replaced in every word, or the URL appended when no word has it.
    static func arguments(_ command: [String], url: String) -> [String] {
        guard command.contains(where: { $0.contains("{url}") }) else { return command + [url] }
        return command.map { $0.replacing("{url}", with: url) }
    }

    enum RunResult: Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Still running when the wait ended; it is left to finish on its own.
        case still
        case cannotStart(String)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal)"
            case .still: "is still running"
            case .cannotStart(let reason): reason
            }
        }
    }

    /// Runs a program and waits at most `limit` for it to end; a program that takes longer keeps running
    /// (a browser launcher may stay in the foreground).
    static func run(_ arguments: [String], within limit: Duration) async -> RunResult {
        let process = ChildProcess(arguments: arguments, outputLimit: 4096)
        let finished = Task<RunResult, Never> {
            do {
                let outcome = try await process.run()
                switch outcome.termination {
                case .exited(let status): return .exited(status)
                case .signalled(let signal): return .signalled(signal)
                }
            } catch {
                return .cannotStart("\(error)")
            }
        }
        // A race without a task group: a group would wait for its slower child, the program.
        let once = Mutex<CheckedContinuation<RunResult, Never>?>(nil)
        let resume: @Sendable (RunResult) -> Void = { result in
            once.withLock { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        return await withCheckedContinuation { continuation in
            once.withLock { $0 = continuation }
            Task {
                resume(await finished.value)
            }
            Task {
                try? await Task.sleep(for: limit)
                resume(.still)
            }
        }
    }
}
