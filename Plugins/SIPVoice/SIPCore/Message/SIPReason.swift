/// One value of a `Reason` header (RFC 3326): why a request was sent, as a protocol's cause.
///
/// `Reason: SIP ;cause=200 ;text="Call completed elsewhere"` in a CANCEL says another branch of a forked
/// call answered (RFC 3326 section 2, RFC 3261 section 9.1); `Q.850;cause=16` is an ISDN cause.
package struct SIPReason: Sendable, Hashable {
    /// `SIP`, `Q.850`, … as written.
    package var protocolName: String
    /// The `cause` parameter; nil when absent or not a number.
    package var cause: Int?
    /// The `text` parameter, unquoted.
    package var text: String?

    package init(protocolName: String, cause: Int?, text: String? = nil) {
        self.protocolName = protocolName
        self.cause = cause
        self.text = text
    }

    /// Whether it is the SIP protocol's cause `status` (the protocol name compared ignoring case).
    package func isSIP(_ status: Int) -> Bool {
        SIPSyntax.equalsIgnoringCase(self.protocolName, "SIP") && self.cause == status
    }

    /// Whether it is a SIP global failure (6xx), such as 603 Decline: the reason a forking proxy cancels the
    /// other branches when one of them declined (RFC 3261 section 16.7 step 5).
    package var isSIPGlobalFailure: Bool {
        SIPSyntax.equalsIgnoringCase(self.protocolName, "SIP") && (600...699).contains(self.cause ?? 0)
    }
}

extension SIPReason {
    /// Parses one value: `protocol *(SEMI reason-params)` (RFC 3326 section 2).
    package init(parsing text: some StringProtocol) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let name = scanner.readToken() else {
            throw SIPParseError(.headerValue, "expected a protocol such as SIP or Q.850 at \(scanner.excerpt)")
        }
        let parameters = try SIPParameters.parseHeaderParameters(&scanner)
        self.protocolName = name
        self.cause = parameters["cause"].flatMap { Int($0) }
        self.text = parameters["text"]
    }
}

extension SIPHeaders {
    /// Every `Reason` value, in order (RFC 3326).
    package var reasons: [SIPReason] {
        get throws(SIPParseError) {
            var reasons: [SIPReason] = []
            for value in self.values(.reason) {
                do { reasons.append(try SIPReason(parsing: value)) } catch { throw error.inHeader("Reason") }
            }
            return reasons
        }
    }

    /// The `P-Asserted-Identity` values (RFC 3325 section 9.1: one, or a SIP URI and a tel URI).
    package var assertedIdentities: [SIPNameAddress] {
        get throws(SIPParseError) {
            var identities: [SIPNameAddress] = []
            for value in self.values(.pAssertedIdentity) {
                do { identities.append(try SIPNameAddress(parsing: value)) } catch { throw error.inHeader("P-Asserted-Identity") }
            }
            return identities
        }
    }
}
