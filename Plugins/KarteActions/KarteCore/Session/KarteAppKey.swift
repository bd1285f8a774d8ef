package import AttendantPluginAPI

/// Where the channel's KARTE app key comes from: its token, else `app-key` in its secrets. Messages say
/// only where a key was looked for and how long a wrong one is, never the key.
package enum KarteAppKey {
    /// The name in the channel's secrets.
    package static let secretName = "app-key"

    /// KARTE's check (`AppKey.isValid`): 32 characters. Printable ASCII too, since it goes into a header.
    package static func isValid(_ key: String) -> Bool {
        key.utf8.count == 32 && key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The key the token gives, or nil when the channel has no token source (then the secrets are
    /// asked); a token that is no app key, or none yet, fails.
    package static func fromToken(_ state: ChannelTokenState) throws(ChannelError) -> String? {
        switch state {
        case .available(let token):
            guard Self.isValid(token.value) else {
                throw ChannelError(
                    .configuration,
                    "karte-actions: the channel's token is not a KARTE app key (\(token.value.count) characters; an app key has 32)"
                )
            }
            return token.value
        case .unavailable(let reason):
            throw ChannelError(.authentication, "karte-actions: no app key yet: \(reason)")
        default:
            return nil
        }
    }

    /// The key kept in the secrets (`secret`, nil when there is none), checked.
    package static func fromSecrets(_ secret: String?, channelName: String) throws(ChannelError) -> String {
        guard let secret else {
            throw ChannelError(
                .configuration,
                "karte-actions: no app key: give the channel a token source (token-file, token-command) that yields it, or put it in secrets.json as {\"\(channelName)\": {\"\(Self.secretName)\": \"…\"}}"
            )
        }
        guard Self.isValid(secret) else {
            throw ChannelError(
                .configuration,
                "karte-actions: the app-key in secrets.json is not a KARTE app key (\(secret.count) characters; an app key has 32)"
            )
        }
        return secret
    }
}
