/// Who forwarded a call to this user agent, and why: the diverting party of an INVITE's `History-Info`
/// (RFC 7044) or `Diversion` (RFC 5806) header.
package struct SIPDiversion: Sendable, Hashable {
    /// The address the call was for before it was forwarded here.
    package var party: SIPNameAddress
    /// Why, in RFC 5806's words (`unconditional`, `user-busy`, `no-answer`, `deflection`, …); a History-Info
    /// cause is mapped to them as RFC 7544 section 7 does. Nil when the header does not say.
    package var reason: String?

    package init(party: SIPNameAddress, reason: String?) {
        self.party = party
        self.reason = reason
    }

    /// The diversion `headers` describe: History-Info's when it shows one, else the topmost Diversion
    /// value (RFC 5806 section 4: values are added at the top, so the first is the last diversion, the
    /// one that sent the call here). Nil when neither does, or the one that does cannot be read.
    package static func of(_ headers: SIPHeaders) -> SIPDiversion? {
        if let entries = try? headers.historyInfo, let diversion = Self.of(entries) { return diversion }
        guard let first = headers.values(.diversion).first, let party = try? SIPNameAddress(parsing: first) else { return nil }
        return SIPDiversion(party: SIPNameAddress(displayName: party.displayName, uri: party.uri), reason: party.parameters["reason"])
    }

    /// The diversion that led to the last History-Info entry (the target this request reached, RFC 7044
    /// section 9.2): up its entries' chain, past registered-contact (`rc`) and unchanged (`np`) steps, to
    /// the first retarget (`mp`), whose parent is the diverting party. An entry of RFC 4244 (no tag) counts
    /// as a retarget when its URI carries RFC 4458's `cause`.
    package static func of(_ entries: [SIPHistoryEntry]) -> SIPDiversion? {
        var byIndex: [[Int]: SIPHistoryEntry] = [:]
        for entry in entries where byIndex[entry.index] == nil { byIndex[entry.index] = entry }
        var current = entries.last
        var steps = 0
        while let entry = current, steps < entries.count {
            steps += 1
            let parent: [Int]?
            switch entry.tag {
            case .mapped(let from):
                return byIndex[from].map { Self.diversion(to: entry, from: $0) }
            case .registeredContact(let from), .unchanged(let from):
                parent = from
            case nil:
                if entry.cause != nil, let from = byIndex[Array(entry.index.dropLast())] {
                    return Self.diversion(to: entry, from: from)
                }
                parent = entry.index.count > 1 ? Array(entry.index.dropLast()) : nil
            }
            current = parent.flatMap { byIndex[$0] }
        }
        return nil
    }

    /// `from` was retargeted to `entry`: the cause is `entry`'s RFC 4458 `cause`, else the Reason RFC 7044
    /// section 10.3 puts in the URI of the entry that was retargeted.
    private static func diversion(to entry: SIPHistoryEntry, from: SIPHistoryEntry) -> SIPDiversion {
        let cause = entry.cause ?? from.reason.flatMap { SIPSyntax.equalsIgnoringCase($0.protocolName, "SIP") ? $0.cause : nil }
        var uri = from.target.uri
        uri.headers = []
        uri.parameters.remove("cause")
        return SIPDiversion(party: SIPNameAddress(displayName: from.target.displayName, uri: uri), reason: cause.map(Self.reason(forCause:)))
    }

    /// RFC 4458 section 7's causes in RFC 5806's reason words (RFC 7544 section 7's mapping); others as
    /// `cause NNN`.
    package static func reason(forCause cause: Int) -> String {
        switch cause {
        case 302: "unconditional"
        case 486: "user-busy"
        case 408: "no-answer"
        case 480, 487: "deflection"
        case 503: "unavailable"
        case 404: "unknown"
        default: "cause \(cause)"
        }
    }
}

/// One `History-Info` entry (RFC 7044 section 4.1): the target a request was sent to, its index in the
/// request's history, and how it came from its parent.
package struct SIPHistoryEntry: Sendable, Hashable {
    /// How this entry's target was derived from an earlier one (RFC 7044 section 4.1, the hi-target-param).
    package enum Tag: Sendable, Hashable {
        /// `rc`: a registered contact of the AoR at that index.
        case registeredContact([Int])
        /// `mp`: the target at that index was retargeted here (a diversion).
        case mapped([Int])
        /// `np`: the same target as at that index.
        case unchanged([Int])
    }

    /// The targeted-to URI, with its display name; its headers hold an escaped Reason when the request to
    /// it was answered with one (RFC 7044 section 10.3).
    package var target: SIPNameAddress
    /// `index=1.1.2` as `[1, 1, 2]`.
    package var index: [Int]
    package var tag: Tag?

    /// RFC 4458's `cause` URI parameter: why the request was retargeted to this target.
    package var cause: Int? { self.target.uri.parameters["cause"].flatMap { Int($0) } }

    /// The `Reason` header escaped in the URI (`?Reason=SIP%3Bcause%3D486`), if any.
    package var reason: SIPReason? {
        guard let header = self.target.uri.headers.first(where: { SIPSyntax.equalsIgnoringCase($0.name, "Reason") }),
            let value = header.value.flatMap(SIPDiversion.percentDecoded)
        else { return nil }
        return try? SIPReason(parsing: value)
    }

    package init(target: SIPNameAddress, index: [Int], tag: Tag? = nil) {
        self.target = target
        self.index = index
        self.tag = tag
    }

    /// Parses one entry: `<uri>;index=1.1;mp=1`.
    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        let target = try SIPNameAddress(parsing: text)
        guard let index = target.parameters["index"].flatMap(Self.index) else {
            throw SIPParseError(.headerValue, "a History-Info entry needs an index such as 1.1")
        }
        self.index = index
        if let from = target.parameters["mp"].flatMap(Self.index) {
            self.tag = .mapped(from)
        } else if let from = target.parameters["rc"].flatMap(Self.index) {
            self.tag = .registeredContact(from)
        } else if let from = target.parameters["np"].flatMap(Self.index) {
            self.tag = .unchanged(from)
        } else {
            self.tag = nil
        }
        self.target = target
    }

    /// `1.1.2` as `[1, 1, 2]`; nil unless every part is a number.
    static func index(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        return parts.compactMap(\.self)
    }
}

extension SIPHeaders {
    /// Every `History-Info` entry, in order (RFC 7044).
    package var historyInfo: [SIPHistoryEntry] {
        get throws(SIPParseError) {
            var entries: [SIPHistoryEntry] = []
            for value in self.values(.historyInfo) {
                do { entries.append(try SIPHistoryEntry(parsing: value)) } catch { throw error.inHeader("History-Info") }
            }
            return entries
        }
    }
}

extension SIPDiversion {
    /// `%XX` escapes decoded (RFC 3261 section 19.1.2); nil when one is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
