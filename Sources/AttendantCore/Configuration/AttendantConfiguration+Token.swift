import AttendantPluginAPI

extension TableReader {
    /// A channel's `token-*` keys: one source (`token-command`, `token-url`, `token-file`,
    /// `token-credential`) and the schedule (`token-renew-at`, `token-renew-before`, `token-timeout`).
    mutating func tokenSettings() -> TokenSettings? {
        var sources: [(key: String, source: TokenSettings.Source)] = []

        if let arguments = self.strings("token-command") {
            if arguments.isEmpty {
                self.problem(
                    .invalidValue,
                    "token-command",
                    "expected the program and its arguments, such as [\"/usr/bin/pass\", \"show\", \"attendant/desk\"], found an empty array"
                )
            } else if arguments[0].isEmpty {
                self.problem(.invalidValue, "token-command", "expected the program's path or name first, found an empty string")
            } else if arguments[0].contains("/"), !arguments[0].hasPrefix("/"), !arguments[0].hasPrefix("~/") {
                self.problem(
                    .invalidValue,
                    "token-command",
                    "expected the program as an absolute path, a path starting with ~/ or a name to look up in $PATH, found \"\(arguments[0])\""
                )
            } else {
                sources.append(("token-command", .command(arguments)))
            }
        }

        let url = self.string("token-url")
        let method = self.string("token-url-method")
        let field = self.string("token-url-field")
        let hasURL = self.table["token-url"] != nil
        var httpMethod = TokenSettings.HTTPMethod.get
        if let method {
            if let parsed = TokenSettings.HTTPMethod(rawValue: method.uppercased()) {
                httpMethod = parsed
            } else {
                self.problem(.invalidValue, "token-url-method", "expected \"GET\" or \"POST\", found the string \"\(method)\"")
            }
        }
        if let field, field.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            self.problem(
                .invalidValue,
                "token-url-field",
                "expected the name of the JSON field that holds the token, or a dotted path such as \"data.token\", found \"\(field)\""
            )
        }
        for key in ["token-url-method", "token-url-field"] where !hasURL && self.table[key] != nil {
            self.problem(.invalidValue, key, "only used with token-url, which this channel does not have")
        }
        if let url {
            if let problem = Self.urlProblem(url) {
                self.problem(.invalidValue, "token-url", problem)
            } else {
                sources.append(("token-url", .url(url, method: httpMethod, field: field)))
            }
        }

        if let path = self.path("token-file") { sources.append(("token-file", .file(path))) }

        if let name = self.string("token-credential") {
            if name.isEmpty || name.contains("/") || name == "." || name == ".." || name.utf8.count > 255 {
                self.problem(
                    .invalidValue,
                    "token-credential",
                    "expected a credential name as the unit's LoadCredential= gives it (no \"/\"), found \"\(name)\""
                )
            } else {
                sources.append(("token-credential", .credential(name)))
            }
        }

        let renewAt = self.number("token-renew-at")
        if let renewAt, !(renewAt > 0 && renewAt < 1) {
            let found = self.table["token-renew-at"].map(\.description) ?? "\(renewAt)"
            self.problem(
                .invalidValue,
                "token-renew-at",
                "expected a fraction of the token's lifetime between 0 and 1 (0.9 renews when 90 % of it has passed), found \(found)"
            )
        }
        let renewBefore = self.duration("token-renew-before", positive: false)
        let timeout = self.duration("token-timeout")

        // The source keys that were present, valid or not, in the order they were read.
        let present = TokenSettings.sourceKeys.filter { self.table[$0] != nil }
        if present.count > 1 {
            for key in present.dropFirst() {
                self.problem(
                    .invalidValue,
                    key,
                    "a channel has one token source, and this one already has \"\(present[0])\"\(self.reference(to: self.place(present[0]), from: key).map { " (\($0))" } ?? "")"
                )
            }
            return nil
        }
        guard let source = sources.first?.source else {
            if present.isEmpty {
                for key in ["token-renew-at", "token-renew-before", "token-timeout"] where self.table[key] != nil {
                    self.problem(
                        .invalidValue,
                        key,
                        "only used with a token source (token-command, token-url, token-file or token-credential), which this channel does not have"
                    )
                }
            }
            return nil
        }
        var settings = TokenSettings(source: source)
        if let renewAt, renewAt > 0, renewAt < 1 { settings.renewAt = renewAt }
        if let renewBefore { settings.renewBefore = renewBefore }
        if let timeout { settings.timeout = timeout }
        return settings
    }

    /// Why `url` cannot be a token URL, or nil: https, or http to this machine only (a token must not
    /// cross a network in the clear).
    static func urlProblem(_ url: String) -> String? {
        let shown = TokenSettings.Source.redacted(url)
        let expected = "expected an https:// URL (http:// only to localhost), found \"\(shown)\""
        let lowered = url.lowercased()
        let secure = lowered.hasPrefix("https://")
        guard secure || lowered.hasPrefix("http://") else { return expected }
        let rest = url.dropFirst(secure ? 8 : 7)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "\t" }) else { return expected }
        if !secure {
            let local = host.lowercased() == "localhost" || host.hasPrefix("127.") || host == "::1"
            guard local else { return expected }
        }
        return nil
    }
}
