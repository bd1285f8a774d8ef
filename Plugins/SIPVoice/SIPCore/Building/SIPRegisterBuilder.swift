/// What a REGISTER says about this user agent, and how to write one (RFC 3261 section 10.2, RFC 5626
/// section 4.2).
///
/// ```
/// REGISTER sip:example.com SIP/2.0
/// Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bK…;rport
/// Max-Forwards: 70
/// From: <sip:alice@example.com>;tag=…
/// To: <sip:alice@example.com>
/// Call-ID: …
/// CSeq: 1 REGISTER
/// Contact: <sip:alice@192.0.2.10:5060;transport=tcp>;+sip.instance="<urn:uuid:…>";reg-id=1
/// Expires: 600
/// Supported: outbound, path
/// User-Agent: Attendant
/// Content-Length: 0
/// ```
package struct SIPRegisterBuilder: Sendable, Hashable {
    /// The Request-URI: the registrar's domain, `sip:example.com`.
    package var registrar: SIPURI
    /// The address of record, in To and From: `sip:alice@example.com`.
    package var addressOfRecord: SIPURI
    package var displayName: String?
    /// Where calls for the address of record should go: this user agent's address.
    package var contact: SIPURI
    /// The Via's transport (`UDP`, `TCP`, `TLS`) and sent-by host and port.
    package var viaTransport: String
    package var viaHost: String
    package var viaPort: Int?
    /// Ask for `rport` (RFC 3581) so responses come back to the port the request left from.
    package var requestsRPort: Bool = true
    /// `+sip.instance` (RFC 5626): with it, a re-registration replaces this device's earlier binding
    /// instead of adding one. A `urn:uuid:…`.
    package var instanceID: String?
    /// RFC 5626 outbound: adds `reg-id` to the Contact and `Supported: outbound, path`.
    package var outbound: Bool = false
    package var registrationID: UInt32 = 1
    /// Pre-loaded Route set (an outbound proxy), written as Route lines.
    package var routes: [SIPURI] = []
    package var userAgent: String? = "Attendant"

    package init(
        registrar: SIPURI,
        addressOfRecord: SIPURI,
        contact: SIPURI,
        viaTransport: String,
        viaHost: String,
        viaPort: Int? = nil
    ) {
        self.registrar = registrar
        self.addressOfRecord = addressOfRecord
        self.contact = contact
        self.viaTransport = viaTransport.uppercased()
        self.viaHost = viaHost
        self.viaPort = viaPort
    }

    /// The Contact element this builder writes.
    package var contactAddress: SIPNameAddress {
        var parameters = SIPParameters()
        if let instanceID { parameters.set("+sip.instance", "<\(instanceID)>", quoted: true) }
        if self.outbound, self.instanceID != nil { parameters.set("reg-id", String(self.registrationID)) }
        return SIPNameAddress(uri: self.contact, parameters: parameters)
    }

    /// A REGISTER (`expires` 0 removes the binding).
    package func request(
        callID: String,
        fromTag: String,
        sequence: UInt32,
        branch: String,
        expires: UInt32,
        credentials: [(SIPHeaderName, SIPCredentials)] = []
    ) -> SIPRequest {
        var via = SIPVia(transport: self.viaTransport, host: self.viaHost, port: self.viaPort, parameters: [SIPParameter("branch", branch)])
        if self.requestsRPort { via.parameters.append(SIPParameter("rport")) }
        var headers = SIPHeaders()
        headers.add(.via, via.description)
        headers.add(.maxForwards, "70")
        headers.add(
            .from,
            SIPNameAddress(displayName: self.displayName, uri: self.addressOfRecord, parameters: [SIPParameter("tag", fromTag)]).description
        )
        headers.add(.to, SIPNameAddress(displayName: self.displayName, uri: self.addressOfRecord).description)
        headers.add(.callID, callID)
        headers.add(.cseq, SIPCSeq(sequence, .register).description)
        for route in self.routes { headers.add(.route, "<\(route)>") }
        headers.add(.contact, self.contactAddress.description)
        headers.add(.expires, String(expires))
        if self.outbound { headers.add(.supported, "outbound, path") }
        for (name, value) in credentials { headers.add(name, value.description) }
        if let userAgent { headers.add(.userAgent, userAgent) }
        return SIPRequest(method: .register, uri: self.registrar, headers: headers)
    }
}

/// Where this agent is reached on a flow: the address and port its socket has, as Contact and Via name
/// them.
package struct SIPLocalAddress: Sendable, Hashable {
    /// As the socket reports it: `192.0.2.10`, `2001:db8::1`.
    package var ip: String
    package var port: Int
    /// `UDP`, `TCP` or `TLS`.
    package var transport: String
    /// The Contact's scheme: `sips` when registering with a `sips:` registrar, which asks for TLS on every
    /// hop to this Contact too (RFC 5630 section 4.1); else `sip`.
    package var scheme: String

    package init(ip: String, port: Int, transport: String, scheme: String = "sip") {
        self.ip = ip
        self.port = port
        self.transport = transport.uppercased()
        self.scheme = scheme
    }

    /// The host as a URI and a Via write it: an IPv6 address in brackets.
    package var host: String { self.ip.contains(":") ? "[\(self.ip)]" : self.ip }

    /// `user`'s Contact here: `sip:alice@192.0.2.10:5060`, with `;transport=tcp` over TCP (UDP is the
    /// default a URI without the parameter means) and `;transport=tls` over TLS (RFC 3261 section 19.1.1).
    /// A `sips:` Contact has no transport: the scheme says TLS over TCP (RFC 5630 section 3.2.2
    /// deprecates `transport=tls` there).
    package func contact(user: String?) -> SIPURI {
        var parameters = SIPParameters()
        if self.transport != "UDP", self.scheme != "sips" { parameters.set("transport", self.transport.lowercased()) }
        return SIPURI(scheme: self.scheme, user: user, host: self.host, port: self.port, parameters: parameters)
    }
}

extension SIPRegisterBuilder {
    /// A builder for `addressOfRecord` reached at `local`: its Contact, and the Via of its requests.
    package init(registrar: SIPURI, addressOfRecord: SIPURI, local: SIPLocalAddress) {
        self.init(
            registrar: registrar,
            addressOfRecord: addressOfRecord,
            contact: local.contact(user: addressOfRecord.user),
            viaTransport: local.transport,
            viaHost: local.host,
            viaPort: local.port
        )
    }
}
