/// A SIP request: method, Request-URI, headers and body.
package struct SIPRequest: Sendable, Hashable {
    package var method: SIPMethod
    package var uri: SIPURI
    package var headers: SIPHeaders
    package var body: [UInt8]

    package init(method: SIPMethod, uri: SIPURI, headers: SIPHeaders = [], body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The message's bytes; `Content-Length` is always written last and always matches the body.
    package func serialized() -> [UInt8] {
        SIPSerializer.serialize(startLine: "\(self.method) \(self.uri) SIP/2.0", headers: self.headers, body: self.body)
    }
}

/// A SIP response: status code, reason phrase, headers and body.
package struct SIPResponse: Sendable, Hashable {
    /// 100 through 699.
    package var statusCode: Int
    package var reasonPhrase: String
    package var headers: SIPHeaders
    package var body: [UInt8]

    package init(statusCode: Int, reasonPhrase: String? = nil, headers: SIPHeaders = [], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase ?? SIPResponse.defaultReasonPhrase(for: statusCode)
        self.headers = headers
        self.body = body
    }

    package var isProvisional: Bool { (100..<200).contains(self.statusCode) }
    package var isSuccess: Bool { (200..<300).contains(self.statusCode) }
    package var isFinal: Bool { self.statusCode >= 200 }

    package func serialized() -> [UInt8] {
        let reason = self.reasonPhrase.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 }
        return SIPSerializer.serialize(startLine: "SIP/2.0 \(self.statusCode) \(String(reason))", headers: self.headers, body: self.body)
    }

    /// The reason phrases of RFC 3261 section 21 and the extensions used here.
    package static func defaultReasonPhrase(for statusCode: Int) -> String {
        switch statusCode {
        case 100: "Trying"
        case 180: "Ringing"
        case 181: "Call Is Being Forwarded"
        case 182: "Queued"
        case 183: "Session Progress"
        case 200: "OK"
        case 202: "Accepted"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Moved Temporarily"
        case 305: "Use Proxy"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 420: "Bad Extension"
        case 421: "Extension Required"
        case 423: "Interval Too Brief"
        case 439: "First Hop Lacks Outbound Support"
        case 480: "Temporarily Unavailable"
        case 481: "Call/Transaction Does Not Exist"
        case 482: "Loop Detected"
        case 483: "Too Many Hops"
        case 486: "Busy Here"
        case 487: "Request Terminated"
        case 488: "Not Acceptable Here"
        case 491: "Request Pending"
        case 500: "Server Internal Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Server Time-out"
        case 600: "Busy Everywhere"
        case 603: "Decline"
        case 604: "Does Not Exist Anywhere"
        case 606: "Not Acceptable"
        default: ""
        }
    }
}

/// A request or a response, as read from the wire.
package enum SIPMessage: Sendable, Hashable {
    case request(SIPRequest)
    case response(SIPResponse)

    package var headers: SIPHeaders {
        switch self {
        case .request(let request): request.headers
        case .response(let response): response.headers
        }
    }

    package var body: [UInt8] {
        switch self {
        case .request(let request): request.body
        case .response(let response): response.body
        }
    }

    package var request: SIPRequest? {
        if case .request(let request) = self { return request }
        return nil
    }

    package var response: SIPResponse? {
        if case .response(let response) = self { return response }
        return nil
    }

    package func serialized() -> [UInt8] {
        switch self {
        case .request(let request): request.serialized()
        case .response(let response): response.serialized()
        }
    }
}

enum SIPSerializer {
    static func serialize(startLine: String, headers: SIPHeaders, body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + headers.count * 48 + body.count)
        bytes.append(contentsOf: startLine.utf8)
        bytes.append(contentsOf: [SIPSyntax.cr, SIPSyntax.lf])
        for field in headers where field.name != .contentLength {
            bytes.append(contentsOf: field.name.canonical.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: [SIPSyntax.cr, SIPSyntax.lf])
        }
        bytes.append(contentsOf: "Content-Length: \(body.count)\r\n\r\n".utf8)
        bytes.append(contentsOf: body)
        return bytes
    }
}
