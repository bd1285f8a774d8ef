extension SIPResponse {
    /// A response to `request` as RFC 3261 section 8.2.6 builds it: the Via lines in order, From, To (with
    /// `toTag` added when the request's To has none), Call-ID and CSeq copied, and for 100 Trying the
    /// request's Timestamp. `contact` adds a Contact line (a 302's target, or the UAS's address in a
    /// dialog-creating 180); `extraHeaders` come after it.
    package static func answering(
        _ request: SIPRequest,
        statusCode: Int,
        reasonPhrase: String? = nil,
        toTag: String? = nil,
        contact: SIPNameAddress? = nil,
        extraHeaders: SIPHeaders = []
    ) -> SIPResponse {
        var headers = SIPHeaders()
        for field in request.headers where field.name == .via { headers.add(.via, field.value) }
        if let from = request.headers[.from] { headers.add(.from, from) }
        if let to = request.headers[.to] {
            let hasTag = (try? SIPNameAddress(parsing: to))?.tag != nil
            headers.add(.to, toTag.map { hasTag ? to : "\(to);tag=\($0)" } ?? to)
        }
        if let callID = request.headers[.callID] { headers.add(.callID, callID) }
        if let cseq = request.headers[.cseq] { headers.add(.cseq, cseq) }
        if statusCode == 100, let timestamp = request.headers["Timestamp"] { headers.add("Timestamp", timestamp) }
        if let contact { headers.add(.contact, contact.description) }
        for field in extraHeaders { headers.add(field.name, field.value) }
        return SIPResponse(statusCode: statusCode, reasonPhrase: reasonPhrase, headers: headers)
    }
}
