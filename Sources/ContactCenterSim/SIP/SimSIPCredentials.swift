/// One Authorization value: a scheme and what follows it (RFC 3261 section 22.4; for Bearer, RFC 8898
/// section 2.3, the token itself).
struct SimSIPCredentials: Sendable, Hashable {
    var scheme: String
    var rest: String

    init(parsing text: String) {
        let trimmed = SimSIPText.trimmed(text)
        if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            self.scheme = String(trimmed[..<space])
            self.rest = SimSIPText.trimmed(trimmed[space...])
        } else {
            self.scheme = trimmed
            self.rest = ""
        }
    }

    func isScheme(_ scheme: String) -> Bool { self.scheme.lowercased() == scheme.lowercased() }

    /// A Bearer token: a token68 (RFC 7235 section 2.1: letters, digits, `-._~+/`, then `=` padding only);
    /// nil for any other scheme, and for parameters where the token should be.
    var bearerToken: String? {
        guard self.isScheme("Bearer") else { return nil }
        let body = self.rest.prefix { $0 != "=" }
        let padding = self.rest.dropFirst(body.count)
        guard !body.isEmpty, padding.allSatisfy({ $0 == "=" }),
            body.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-._~+/".contains($0) })
        else { return nil }
        return self.rest
    }
}
