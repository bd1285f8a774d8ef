/// Where a channel's token comes from and when it is renewed: the `token-*` keys of its `[[channel]]`
/// table. A channel without them has no token (``NoTokenKeeper``).
package struct TokenSettings: Sendable, Equatable {
    /// Exactly one of the `token-command`, `token-url`, `token-file` and `token-credential` keys.
    package enum Source: Sendable, Equatable {
        /// `token-command = ["/path", "arg", …]`: the command's standard output, trimmed.
        case command([String])
        /// `token-url`, `token-url-method`, `token-url-field`: the response body, or a field of it as JSON.
        case url(String, method: HTTPMethod, field: String?)
        /// `token-file = "~/…"`: the file's contents, trimmed, read again at every renewal.
        case file(String)
        /// `token-credential = "name"`: `$CREDENTIALS_DIRECTORY/name`, as systemd's `LoadCredential=` and
        /// `LoadCredentialEncrypted=` provide it.
        case credential(String)
    }

    package enum HTTPMethod: String, Sendable, Equatable, CaseIterable {
        case get = "GET"
        case post = "POST"
    }

    package var source: Source
    /// Renew at this fraction of the token's lifetime (`iat` to `exp`, or fetch time to `exp`).
    package var renewAt: Double = 0.9
    /// … and at least this long before it expires.
    package var renewBefore: Duration = .seconds(60)
    /// How long one attempt to get a token may take (a command that runs longer is killed).
    package var timeout: Duration = .seconds(10)

    package init(source: Source) {
        self.source = source
    }

    /// The configuration keys that name a source, in the order they are read.
    static let sourceKeys = ["token-command", "token-url", "token-file", "token-credential"]
}

extension TokenSettings.Source: CustomStringConvertible {
    /// How messages name the source: `token command /usr/bin/pass`, `token URL https://host/path`, …
    ///
    /// A command is named by its program only and a URL without user info, query and fragment, because
    /// arguments, passwords and query strings may carry secrets.
    package var description: String {
        switch self {
        case .command(let arguments): "token command \(arguments.first ?? "")"
        case .url(let url, _, _): "token URL \(Self.redacted(url))"
        case .file(let path): "token file \(path)"
        case .credential(let name): "credential \"\(name)\""
        }
    }

    static func redacted(_ url: String) -> String {
        var rest = Substring(url.prefix { $0 != "?" && $0 != "#" })
        var scheme: Substring = ""
        if let separator = rest.firstRange(of: "://") {
            scheme = rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
        }
        let authority = rest.prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return String(scheme + rest)
    }
}
