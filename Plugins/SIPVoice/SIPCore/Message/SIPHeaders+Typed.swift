/// Typed views of the headers the SIPVoice plugin reads. Each parses on access and throws a
/// ``SIPParseError`` naming the header; headers that may be absent return nil when they are.
extension SIPHeaders {
    package var callID: String {
        get throws(SIPParseError) {
            let value = try self.required(.callID)
            guard !value.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw SIPParseError(.headerValue, "Call-ID contains whitespace", at: .init(header: "Call-ID"))
            }
            return value
        }
    }

    package var cseq: SIPCSeq {
        get throws(SIPParseError) {
            let value = try self.required(.cseq)
            do { return try SIPCSeq(parsing: value) } catch { throw error.inHeader("CSeq") }
        }
    }

    package var from: SIPNameAddress {
        get throws(SIPParseError) { try self.nameAddress(.from) }
    }

    package var to: SIPNameAddress {
        get throws(SIPParseError) { try self.nameAddress(.to) }
    }

    /// Every Via element, topmost first.
    package var vias: [SIPVia] {
        get throws(SIPParseError) {
            var vias: [SIPVia] = []
            for value in self.values(.via) {
                do { vias.append(try SIPVia(parsing: value)) } catch { throw error.inHeader("Via") }
            }
            return vias
        }
    }

    /// The topmost Via, which identifies the transaction.
    package var topVia: SIPVia {
        get throws(SIPParseError) {
            guard let first = self.values(.via).first else {
                throw SIPParseError(.missingHeader, "no Via header", at: .init(header: "Via"))
            }
            do { return try SIPVia(parsing: first) } catch { throw error.inHeader("Via") }
        }
    }

    /// The Contact elements; empty when there is no Contact or it is the wildcard `*` (see
    /// ``isWildcardContact``).
    package var contacts: [SIPNameAddress] {
        get throws(SIPParseError) {
            try self.nameAddresses(.contact)
        }
    }

    /// Whether the Contact is `*` (remove every binding).
    package var isWildcardContact: Bool {
        let values = self.values(.contact)
        return values.count == 1 && values[0] == "*"
    }

    package var routes: [SIPNameAddress] { get throws(SIPParseError) { try self.nameAddresses(.route) } }
    package var recordRoutes: [SIPNameAddress] { get throws(SIPParseError) { try self.nameAddresses(.recordRoute) } }
    package var paths: [SIPNameAddress] { get throws(SIPParseError) { try self.nameAddresses(.path) } }

    /// `Expires` in seconds.
    package var expires: UInt32? { get throws(SIPParseError) { try self.deltaSeconds(.expires) } }
    /// `Min-Expires` in seconds (with a 423 response).
    package var minExpires: UInt32? { get throws(SIPParseError) { try self.deltaSeconds(.minExpires) } }
    /// `Flow-Timer` in seconds (RFC 5626 section 10.5).
    package var flowTimer: UInt32? { get throws(SIPParseError) { try self.deltaSeconds(.flowTimer) } }
    package var maxForwards: UInt32? { get throws(SIPParseError) { try self.deltaSeconds(.maxForwards) } }
    package var contentLength: UInt32? { get throws(SIPParseError) { try self.deltaSeconds(.contentLength) } }

    /// `Retry-After` in seconds, ignoring a comment and parameters.
    package var retryAfter: UInt32? {
        get throws(SIPParseError) {
            guard let value = self[.retryAfter] else { return nil }
            let number = value.prefix { $0.isASCII && $0.isNumber }
            guard let seconds = SIPSyntax.parseUInt32(number) else {
                throw SIPParseError(.headerValue, "expected seconds", at: .init(header: "Retry-After"))
            }
            return seconds
        }
    }

    /// Option tags in `Supported`.
    package var supported: [String] { get throws(SIPParseError) { try self.optionTags(.supported) } }
    /// Option tags in `Require`.
    package var require: [String] { get throws(SIPParseError) { try self.optionTags(.require) } }

    /// Whether `Supported` or `Require` lists the option tag (compared ignoring case).
    package func announces(_ optionTag: String) -> Bool {
        (self.values(.supported) + self.values(.require)).contains { SIPSyntax.equalsIgnoringCase($0, optionTag) }
    }

    /// `WWW-Authenticate` challenges, in order.
    package var wwwAuthenticate: [SIPAuthChallenge] {
        get throws(SIPParseError) { try self.challenges(.wwwAuthenticate) }
    }

    /// `Proxy-Authenticate` challenges, in order.
    package var proxyAuthenticate: [SIPAuthChallenge] {
        get throws(SIPParseError) { try self.challenges(.proxyAuthenticate) }
    }

    package var authorization: [SIPCredentials] { get throws(SIPParseError) { try self.credentials(.authorization) } }
    package var proxyAuthorization: [SIPCredentials] { get throws(SIPParseError) { try self.credentials(.proxyAuthorization) } }

    // MARK: Helpers

    func required(_ name: SIPHeaderName) throws(SIPParseError) -> String {
        guard let value = self[name] else {
            throw SIPParseError(.missingHeader, "no \(name) header", at: .init(header: name.canonical))
        }
        guard !value.isEmpty else {
            throw SIPParseError(.headerValue, "empty \(name) header", at: .init(header: name.canonical))
        }
        return value
    }

    private func nameAddress(_ name: SIPHeaderName) throws(SIPParseError) -> SIPNameAddress {
        let value = try self.required(name)
        do { return try SIPNameAddress(parsing: value) } catch { throw error.inHeader(name.canonical) }
    }

    private func nameAddresses(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPNameAddress] {
        var result: [SIPNameAddress] = []
        for value in self.values(name) where value != "*" {
            do { result.append(try SIPNameAddress(parsing: value)) } catch { throw error.inHeader(name.canonical) }
        }
        return result
    }

    private func deltaSeconds(_ name: SIPHeaderName) throws(SIPParseError) -> UInt32? {
        guard let value = self[name] else { return nil }
        guard let seconds = SIPSyntax.parseUInt32(value) else {
            throw SIPParseError(.headerValue, "expected a whole number, got \(SIPURI.excerpt(value))", at: .init(header: name.canonical))
        }
        return seconds
    }

    private func optionTags(_ name: SIPHeaderName) throws(SIPParseError) -> [String] {
        let tags = self.values(name)
        for tag in tags where !SIPSyntax.isToken(tag) {
            throw SIPParseError(.headerValue, "option tag \(SIPURI.excerpt(tag)) is not a token", at: .init(header: name.canonical))
        }
        return tags
    }

    private func challenges(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPAuthChallenge] {
        var result: [SIPAuthChallenge] = []
        for field in self.fields where field.name == name {
            do { result.append(try SIPAuthChallenge(parsing: field.value)) } catch { throw error.inHeader(name.canonical) }
        }
        return result
    }

    private func credentials(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPCredentials] {
        var result: [SIPCredentials] = []
        for field in self.fields where field.name == name {
            do { result.append(try SIPCredentials(parsing: field.value)) } catch { throw error.inHeader(name.canonical) }
        }
        return result
    }
}
