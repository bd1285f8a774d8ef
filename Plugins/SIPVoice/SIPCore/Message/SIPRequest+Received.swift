extension SIPVia {
    /// Notes on this Via where its request came from, as a server transport does on arrival: RFC 3261
    /// section 18.2.1 adds `received` with the source address when the sent-by host is a name or another
    /// address; RFC 3581 section 4 fills an empty `rport` with the source port, and then adds `received`
    /// even when it equals the sent-by host. Returns whether anything changed.
    ///
    /// - Parameters:
    ///   - ip: the source address, IPv4 dotted or IPv6 text without brackets (RFC 3261's `received`
    ///     grammar takes a bare IPv6address).
    ///   - port: the source port.
    package mutating func noteSource(ip: String, port: Int) -> Bool {
        let fillsRPort = self.hasRPort && self.parameters["rport"] == nil
        let host = self.host.hasPrefix("[") && self.host.hasSuffix("]") ? String(self.host.dropFirst().dropLast()) : self.host
        guard fillsRPort || !SIPSyntax.equalsIgnoringCase(host, ip) else { return false }
        if fillsRPort { self.parameters.set("rport", String(port)) }
        self.parameters.set("received", ip)
        return true
    }
}

extension SIPRequest {
    /// Stamps the top Via with the request's source (``SIPVia/noteSource(ip:port:)``), so that every
    /// response, which copies the Via lines (RFC 3261 section 8.2.6), tells the client how it was seen.
    /// Returns the top Via as stamped; nil, leaving the request as it is, when there is none or it does not
    /// parse (the layer above answers or drops such a request).
    @discardableResult
    package mutating func noteSource(ip: String, port: Int) -> SIPVia? {
        guard let index = self.headers.firstIndex(where: { $0.name == .via }) else { return nil }
        // The top Via may be the first element of a comma-separated line.
        var elements = SIPSyntax.splitList(self.headers[index].value)
        guard let first = elements.first, var via = try? SIPVia(parsing: first) else { return nil }
        guard via.noteSource(ip: ip, port: port) else { return via }
        elements[0] = via.description
        var fields = self.headers.fields
        fields[index] = SIPHeaderField(.via, elements.joined(separator: ", "))
        self.headers = SIPHeaders(fields)
        return via
    }
}
