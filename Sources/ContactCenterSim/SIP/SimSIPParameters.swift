/// `;name=value` parameters of a URI, a name-address or a Via, in order. Names compare case-insensitively
/// (RFC 3261 section 19.1.4 and 20); values are kept as sent, quotes included.
package struct SimSIPParameters: Sendable, Hashable, CustomStringConvertible {
    package struct Parameter: Sendable, Hashable {
        package var name: String
        package var value: String?
    }

    package private(set) var items: [Parameter] = []

    package init() {}

    /// Parses `;a=b;c` (the leading semicolon optional).
    init(parsing text: some StringProtocol) {
        self.items = SimSIPText.parameters(text).map { Parameter(name: $0.name, value: $0.value) }
    }

    package func contains(_ name: String) -> Bool { self.items.contains { $0.name == name.lowercased() } }

    /// The value of a parameter without quotes; nil when it is absent or has no value.
    package subscript(name: String) -> String? {
        self.items.first { $0.name == name.lowercased() }?.value.map(SimSIPText.unquoted)
    }

    /// Sets a parameter, replacing it in place if present (nil: a flag without a value).
    package mutating func set(_ name: String, _ value: String?) {
        let key = name.lowercased()
        if let index = self.items.firstIndex(where: { $0.name == key }) {
            self.items[index].value = value
        } else {
            self.items.append(Parameter(name: key, value: value))
        }
    }

    package mutating func remove(_ name: String) { self.items.removeAll { $0.name == name.lowercased() } }

    /// `;a=b;c`, or empty.
    package var description: String {
        self.items.map { ";" + $0.name + ($0.value.map { "=" + $0 } ?? "") }.joined()
    }
}
