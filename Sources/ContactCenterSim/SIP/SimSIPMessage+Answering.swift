/// Building responses to requests (RFC 3261 section 8.2.6): the request's Via fields, From, To, Call-ID and
/// CSeq copied, a To tag added when the response creates one.
extension SimSIPMessage {
    static func answering(
        _ request: SimSIPMessage,
        _ code: Int,
        reason: String? = nil,
        toTag: String? = nil,
        extra: [SimSIPField] = []
    ) -> SimSIPMessage {
        var response = SimSIPMessage(.status(code: code, reason: reason ?? Self.reasonPhrase(code)))
        for field in request.fields where field.name == "Via" { response.fields.append(field) }
        if let from = request.field("From") { response.add("From", from) }
        if let to = request.field("To") {
            let tagged = (try? SimSIPAddress(parsing: to))?.tag != nil
            response.add("To", toTag.map { tagged ? to : "\(to);tag=\($0)" } ?? to)
        }
        for name in ["Call-ID", "CSeq"] {
            if let value = request.field(name) { response.add(name, value) }
        }
        response.fields += extra
        return response
    }

    /// The reason phrases of RFC 3261 section 21 (and RFC 3261's 423) for the codes the simulator sends.
    static func reasonPhrase(_ code: Int) -> String {
        switch code {
        case 100: "Trying"
        case 180: "Ringing"
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 423: "Interval Too Brief"
        case 481: "Call/Transaction Does Not Exist"
        case 487: "Request Terminated"
        case 500: "Server Internal Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Unknown"
        }
    }

    /// A new branch (with the RFC 3261 cookie), tag or Call-ID.
    static func newBranch() -> String { SimSIPVia.branchCookie + SimSIPText.random(16) }
    static func newTag() -> String { SimSIPText.random(10) }
    static func newCallID(host: String) -> String { SimSIPText.random(20) + "@" + host }
}
