/// One registered contact of a user, as the registrar stored it.
package struct SimulatedBinding: Sendable, Hashable {
    /// The user part of the address of record (`alice`).
    package var user: String
    /// The Contact as registered, without its `expires` parameter.
    package var contact: SimSIPAddress
    /// `udp` or `tcp`: how the REGISTER arrived.
    package var transport: String
    /// The REGISTER's source `host:port`.
    package var sourceAddress: String
    /// When the binding expires, in the configuration's clock (Unix seconds).
    package var expiresAt: Double
    /// The RFC 5626 `+sip.instance` (`urn:uuid:…`), if the Contact had one.
    package var instanceID: String?
    /// The RFC 5626 `reg-id`, if the Contact had one.
    package var registrationID: UInt32?
    /// The Authorization scheme the REGISTER used (`Bearer`).
    package var authorizationScheme: String
    /// Where requests for this binding go.
    let flow: SIPFlow

    /// The contact URI as text.
    package var contactURI: String { self.contact.uri.description }

    /// Whether a new Contact replaces this binding: same instance, or (without instances) the same URI.
    func isReplaced(by contact: SimSIPAddress) -> Bool {
        if let instanceID, let other = contact.instanceID { return instanceID == other }
        return self.contact.uri.isEquivalent(to: contact.uri)
    }
}
