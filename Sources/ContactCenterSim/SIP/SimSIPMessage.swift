/// A SIP message as the simulator reads and writes it (RFC 3261 section 7): a start line, header fields
/// in the order they came, and a body.
///
/// The simulator has its own SIP codec and does not reuse the SIPVoice plugin's (`SIPCore`): a misreading
/// shared by both sides would pass every test, so each side is written from the RFC on its own. This type
/// is deliberately loose: header values stay text, and the few fields the registrar and the caller look
/// at are read on demand (``SimSIPMessage/field(_:)``, the typed accessors in `SimSIPMessage+Fields.swift`).
package struct SimSIPMessage: Sendable, Hashable, CustomStringConvertible {
    /// The request line or the status line.
    package enum StartLine: Sendable, Hashable {
        case request(method: String, uri: String)
        case status(code: Int, reason: String)
    }

    package var startLine: StartLine
    /// Header fields in order, names in their long form (`v` arrives as `Via`).
    package var fields: [SimSIPField]
    package var body: [UInt8]

    package init(_ startLine: StartLine, fields: [SimSIPField] = [], body: [UInt8] = []) {
        self.startLine = startLine
        self.fields = fields
        self.body = body
    }

    /// A request to `uri`.
    package static func request(_ method: String, _ uri: String, fields: [SimSIPField] = [], body: [UInt8] = []) -> SimSIPMessage {
        SimSIPMessage(.request(method: method, uri: uri), fields: fields, body: body)
    }

    // MARK: Start line

    /// The method of a request; nil for a response.
    package var method: String? {
        guard case .request(let method, _) = self.startLine else { return nil }
        return method
    }

    /// The Request-URI of a request, as text.
    package var requestURI: String? {
        guard case .request(_, let uri) = self.startLine else { return nil }
        return uri
    }

    /// The status code of a response; nil for a request.
    package var statusCode: Int? {
        guard case .status(let code, _) = self.startLine else { return nil }
        return code
    }

    package var reasonPhrase: String? {
        guard case .status(_, let reason) = self.startLine else { return nil }
        return reason
    }

    // MARK: Header fields

    /// The value of the first field with this name (any spelling: `i`, `call-id`, `Call-ID`).
    package func field(_ name: String) -> String? {
        let wanted = SimSIPField.canonicalName(name)
        return self.fields.first { $0.name == wanted }?.value
    }

    /// Every value of the fields with this name, in order. Comma-separated values (RFC 3261 section 7.3.1:
    /// `Via: a, b` is the same as two Via fields) are split, outside quotes and angle brackets.
    package func values(_ name: String) -> [String] {
        let wanted = SimSIPField.canonicalName(name)
        return self.fields.filter { $0.name == wanted }.flatMap { SimSIPText.splitList($0.value) }
    }

    /// Appends a field.
    package mutating func add(_ name: String, _ value: String) {
        self.fields.append(SimSIPField(name, value))
    }

    // MARK: Serialising

    /// The message on the wire: CRLF line ends, long header names, and a `Content-Length` that matches the
    /// body (any Content-Length among ``fields`` is replaced).
    package var serialized: [UInt8] {
        var text: String
        switch self.startLine {
        case .request(let method, let uri): text = "\(method) \(uri) SIP/2.0\r\n"
        case .status(let code, let reason):
            // A reason phrase cannot carry a line break; a stray one would end the start line.
            let flat = reason.map { $0.isNewline ? " " : String($0) }.joined()
            text = "SIP/2.0 \(code) \(flat)\r\n"
        }
        for field in self.fields where field.name != "Content-Length" {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "Content-Length: \(self.body.count)\r\n\r\n"
        return Array(text.utf8) + self.body
    }

    package var description: String { String(decoding: self.serialized, as: UTF8.self) }
}

/// One header field: its name in long form and its value, unfolded and trimmed.
package struct SimSIPField: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = Self.canonicalName(name)
        self.value = value
    }

    /// The long, conventionally capitalised name (RFC 3261 section 7.3.3 compact forms expanded; names are
    /// case-insensitive, section 7.3.1). Names the simulator does not know keep their spelling.
    static func canonicalName(_ name: String) -> String {
        let lower = name.lowercased()
        return Self.known[lower] ?? name
    }

    /// Compact forms and the names the simulator writes or reads, by their lowercase spelling.
    private static let known: [String: String] = {
        let longNames = [
            "Via", "From", "To", "Call-ID", "CSeq", "Contact", "Content-Length", "Content-Type", "Max-Forwards",
            "Expires", "Min-Expires", "Authorization", "WWW-Authenticate", "Retry-After", "Require", "Supported",
            "Allow", "Flow-Timer", "User-Agent", "Content-Encoding", "Subject", "Event", "Refer-To",
            "Referred-By", "Session-Expires", "Accept-Contact", "Reject-Contact", "Request-Disposition",
            "Allow-Events", "Identity", "Timestamp",
        ]
        var table = Dictionary(uniqueKeysWithValues: longNames.map { ($0.lowercased(), $0) })
        // RFC 3261 section 20 and the extensions that define compact forms (RFC 3265, 3515, 3892, 3841,
        // 4028, 4474, 3841).
        let compact: [String: String] = [
            "v": "Via", "f": "From", "t": "To", "i": "Call-ID", "m": "Contact", "l": "Content-Length",
            "c": "Content-Type", "e": "Content-Encoding", "s": "Subject", "k": "Supported", "o": "Event",
            "r": "Refer-To", "b": "Referred-By", "x": "Session-Expires", "a": "Accept-Contact",
            "j": "Reject-Contact", "d": "Request-Disposition", "u": "Allow-Events", "y": "Identity",
        ]
        table.merge(compact) { _, new in new }
        return table
    }()
}
