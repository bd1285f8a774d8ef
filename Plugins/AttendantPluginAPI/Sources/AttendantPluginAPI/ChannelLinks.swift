// MARK: - Host API: opening links (since API 1.6)

/// What became of a link a channel asked the host to open (``ChannelHost/openURL(_:)``).
public enum LinkOpenOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Opened for the person: `by` names the program (`xdg-open`, the configured command).
    case opened(by: String)
    /// A URL handler (a D-Bus client, or the configured command) said it takes care of the link itself,
    /// as the SDKs' `shouldOpenURL` returning false; `by` names it.
    case claimed(by: String)
    /// Not opened, by policy (a scheme that is not allowed, a URL that does not parse); the reason says why.
    case refused(String)
    /// The opener could not run or failed; the reason says how.
    case failed(String)

    /// `opened`, `claimed`, `refused` or `failed`.
    public var name: String {
        switch self {
        case .opened: "opened"
        case .claimed: "claimed"
        case .refused: "refused"
        case .failed: "failed"
        }
    }

    /// Who opened or claimed the link, or why it was not opened.
    public var detail: String {
        switch self {
        case .opened(let by), .claimed(let by): by
        case .refused(let reason), .failed(let reason): reason
        }
    }

    public var description: String { "\(self.name): \(self.detail)" }
}

extension ChannelHost {
    /// A host built against API 1.5 or older opens no links.
    public func openURL(_ url: String) async -> LinkOpenOutcome {
        .refused("this attendantd opens no links (it implements plugin API 1.5 or older)")
    }
}
