/// One `name[=value]` parameter of a URI, a header (`;tag=…`) or an authentication header (`realm="…"`).
package struct SIPParameter: Sendable, Hashable {
    /// The name as written; compared case-insensitively.
    package var name: String
    /// The value without quotes and escapes; nil for a flag such as `;rport` or `;lr`.
    package var value: String?
    /// Whether the value is written as a quoted string.
    package var isQuoted: Bool

    package init(_ name: String, _ value: String? = nil, quoted: Bool = false) {
        self.name = name
        self.value = value
        self.isQuoted = quoted && value != nil
    }

    var serialized: String {
        guard let value else { return self.name }
        return self.isQuoted ? "\(self.name)=\(SIPSyntax.quoted(value))" : "\(self.name)=\(value)"
    }
}

/// An ordered list of parameters with case-insensitive names.
package struct SIPParameters: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    package private(set) var elements: [SIPParameter]

    package init(_ elements: [SIPParameter] = []) { self.elements = elements }
    package init(arrayLiteral elements: SIPParameter...) { self.elements = elements }

    package var startIndex: Int { self.elements.startIndex }
    package var endIndex: Int { self.elements.endIndex }
    package subscript(position: Int) -> SIPParameter { self.elements[position] }

    /// Whether a parameter of this name is present (flag or with a value).
    package func contains(_ name: String) -> Bool {
        self.elements.contains { SIPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// The value of the first parameter of this name; nil when absent or a flag.
    package subscript(name: String) -> String? {
        self.elements.first { SIPSyntax.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Replaces every parameter of this name with one, appended where the first one was (or at the end).
    package mutating func set(_ name: String, _ value: String? = nil, quoted: Bool = false) {
        let parameter = SIPParameter(name, value, quoted: quoted)
        if let index = self.elements.firstIndex(where: { SIPSyntax.equalsIgnoringCase($0.name, name) }) {
            self.elements[index] = parameter
            self.elements.removeAll { SIPSyntax.equalsIgnoringCase($0.name, name) && $0 != parameter }
        } else {
            self.elements.append(parameter)
        }
    }

    package mutating func append(_ parameter: SIPParameter) { self.elements.append(parameter) }

    package mutating func remove(_ name: String) {
        self.elements.removeAll { SIPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// `;a=b;c` (empty when there are none).
    var serializedWithSemicolons: String {
        self.elements.map { ";" + $0.serialized }.joined()
    }
}

extension SIPParameters {
    /// Parses `;name[=value]` header parameters (generic-param, RFC 3261 section 25.1) until the end of the
    /// scanner: values are tokens, hosts (IPv6 references included) or quoted strings.
    static func parseHeaderParameters(_ scanner: inout SIPScanner) throws(SIPParseError) -> SIPParameters {
        var parameters = SIPParameters()
        while true {
            scanner.skipWhitespace()
            if scanner.isAtEnd { return parameters }
            guard scanner.consume(UInt8(ascii: ";")) else {
                throw SIPParseError(.headerValue, "expected ';' before a parameter at \(scanner.excerpt)")
            }
            scanner.skipWhitespace()
            guard let name = scanner.readToken() else {
                throw SIPParseError(.headerValue, "expected a parameter name at \(scanner.excerpt)")
            }
            if scanner.consume(UInt8(ascii: "=")) {
                scanner.skipWhitespace()
                parameters.append(try self.parseValue(&scanner, name: name))
            } else {
                parameters.append(SIPParameter(name))
            }
        }
    }

    /// Parses `name=value, name="value"` authentication parameters (RFC 3261 section 25.1 auth-param).
    static func parseCommaSeparated(_ scanner: inout SIPScanner) throws(SIPParseError) -> SIPParameters {
        var parameters = SIPParameters()
        var first = true
        while true {
            scanner.skipWhitespace()
            if scanner.isAtEnd { return parameters }
            if !first {
                guard scanner.consume(UInt8(ascii: ",")) else {
                    throw SIPParseError(.headerValue, "expected ',' between parameters at \(scanner.excerpt)")
                }
                scanner.skipWhitespace()
                if scanner.isAtEnd { return parameters }
            }
            first = false
            guard let name = scanner.readToken() else {
                throw SIPParseError(.headerValue, "expected a parameter name at \(scanner.excerpt)")
            }
            guard scanner.consume(UInt8(ascii: "=")) else {
                throw SIPParseError(.headerValue, "expected '=' after parameter \(name)")
            }
            scanner.skipWhitespace()
            parameters.append(try self.parseValue(&scanner, name: name))
        }
    }

    private static func parseValue(_ scanner: inout SIPScanner, name: String) throws(SIPParseError) -> SIPParameter {
        if scanner.peek == UInt8(ascii: "\"") {
            guard let value = scanner.readQuotedString() else {
                throw SIPParseError(.headerValue, "unterminated quoted value of parameter \(name)")
            }
            return SIPParameter(name, value, quoted: true)
        }
        let value = scanner.readWhile { byte in
            SIPSyntax.isToken(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "@") || byte >= 0x80
        }
        guard !value.isEmpty else {
            throw SIPParseError(.headerValue, "expected a value for parameter \(name) at \(scanner.excerpt)")
        }
        return SIPParameter(name, value)
    }
}
