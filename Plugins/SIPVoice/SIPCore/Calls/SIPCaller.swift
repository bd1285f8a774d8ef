package import AttendantPluginAPI

/// Who is calling, as an INVITE tells it: the identity the network asserts (RFC 3325
/// P-Asserted-Identity) when it comes from the registrar, else what the caller put in From; and who
/// forwarded the call here (``SIPDiversion``).
package struct SIPCaller: Sendable, Hashable {
    /// The name and address to show.
    package var party: Party
    /// Whether ``party`` is the asserted identity.
    package var asserted: Bool
    package var diversion: Contact.Diversion?

    /// `trustingAssertedIdentity`: the INVITE came on the registrar's flow (``SIPOrigin/isRegistrarFlow``).
    /// RFC 3325 section 5: a UA believes P-Asserted-Identity only from an element of its trust domain;
    /// anyone else can write it, as they can write From. An unreadable one is ignored.
    package init(invite: SIPRequest, trustingAssertedIdentity: Bool) {
        let from = try? invite.headers.from
        var party = Party(displayName: from?.displayName ?? "", address: from?.uri.description ?? "")
        var asserted = false
        if trustingAssertedIdentity, let identities = try? invite.headers.assertedIdentities, !identities.isEmpty {
            // RFC 3325 section 9.1: one value, or a SIP URI and a tel URI of the same identity. The number
            // is the tel URI when there is one; the name is the first one given.
            let name = identities.lazy.compactMap(\.displayName).first { !$0.isEmpty } ?? ""
            let address = (identities.first { $0.uri.scheme == "tel" } ?? identities[0]).uri
            party = Party(displayName: name, address: address.description)
            asserted = true
        }
        self.party = party
        self.asserted = asserted
        self.diversion = SIPDiversion.of(invite.headers).map { diversion in
            Contact.Diversion(
                from: Party(displayName: diversion.party.displayName ?? "", address: diversion.party.uri.description),
                reason: diversion.reason ?? ""
            )
        }
    }
}
