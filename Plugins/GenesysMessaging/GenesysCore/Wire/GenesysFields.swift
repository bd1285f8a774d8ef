#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// Reads one JSON object's members by name, and names the member by its path from the document's root
/// when one is missing or of the wrong type. As kotlinx.serialization with `ignoreUnknownKeys` (the SDK's
/// `WebMessagingJson`), members nobody asks for are ignored; an optional member that is null is absent.
struct GenesysFields {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(GenesysWireError) {
        guard case .object(let members) = value else {
            throw GenesysWireError(
                .wrongType,
                "\(path.isEmpty ? "the document" : "field \"\(path)\"") is \(value.typeDescription), expected an object"
            )
        }
        self.members = members
        self.path = path
    }

    func path(_ key: String) -> String { self.path.isEmpty ? key : "\(self.path).\(key)" }

    /// The member, nil when absent or null.
    func optional(_ key: String) -> JSONValue? {
        switch self.members[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    func required(_ key: String) throws(GenesysWireError) -> JSONValue {
        guard let value = self.optional(key) else { throw .missing(self.path(key)) }
        return value
    }

    func string(_ key: String) throws(GenesysWireError) -> String {
        let value = try self.required(key)
        guard case .string(let text) = value else { throw .wrong(self.path(key), value, expected: "a string") }
        return text
    }

    func optionalString(_ key: String) throws(GenesysWireError) -> String? {
        guard let value = self.optional(key) else { return nil }
        guard case .string(let text) = value else { throw .wrong(self.path(key), value, expected: "a string") }
        return text
    }

    func bool(_ key: String) throws(GenesysWireError) -> Bool {
        let value = try self.required(key)
        guard case .bool(let flag) = value else { throw .wrong(self.path(key), value, expected: "a boolean") }
        return flag
    }

    func optionalBool(_ key: String) throws(GenesysWireError) -> Bool? {
        guard let value = self.optional(key) else { return nil }
        guard case .bool(let flag) = value else { throw .wrong(self.path(key), value, expected: "a boolean") }
        return flag
    }

    func integer(_ key: String) throws(GenesysWireError) -> Int {
        try self.integer(key, from: self.required(key))
    }

    func optionalInteger(_ key: String) throws(GenesysWireError) -> Int? {
        guard let value = self.optional(key) else { return nil }
        return try self.integer(key, from: value)
    }

    private func integer(_ key: String, from value: JSONValue) throws(GenesysWireError) -> Int {
        guard case .number = value else { throw .wrong(self.path(key), value, expected: "an integer") }
        guard let whole = value.integerValue else { throw .bad(self.path(key), "is not a whole number in range") }
        return Int(whole)
    }

    func object(_ key: String) throws(GenesysWireError) -> GenesysFields {
        try GenesysFields(self.required(key), path: self.path(key))
    }

    func optionalObject(_ key: String) throws(GenesysWireError) -> GenesysFields? {
        guard let value = self.optional(key) else { return nil }
        return try GenesysFields(value, path: self.path(key))
    }

    /// The array's items, each with its path (`content[2]`); an absent array is empty, as the SDK's
    /// `= emptyList()` defaults make it.
    func array(_ key: String) throws(GenesysWireError) -> [(value: JSONValue, path: String)] {
        guard let value = self.optional(key) else { return [] }
        guard case .array(let items) = value else { throw .wrong(self.path(key), value, expected: "an array") }
        return items.enumerated().map { (value: $0.element, path: "\(self.path(key))[\($0.offset)]") }
    }

    func strings(_ key: String) throws(GenesysWireError) -> [String] {
        var result: [String] = []
        for (value, path) in try self.array(key) {
            guard case .string(let text) = value else { throw .wrong(path, value, expected: "a string") }
            result.append(text)
        }
        return result
    }

    /// A `Map<String, String>`: an object whose members are all strings; absent is empty.
    func stringMap(_ key: String) throws(GenesysWireError) -> [String: String] {
        guard let value = self.optional(key) else { return [:] }
        let fields = try GenesysFields(value, path: self.path(key))
        var result: [String: String] = [:]
        for (name, member) in fields.members {
            guard case .string(let text) = member else { throw .wrong(fields.path(name), member, expected: "a string") }
            result[name] = text
        }
        return result
    }
}

extension JSONValue {
    /// An object of the members that are not nil, for encoders that mirror kotlinx.serialization's
    /// default (`encodeDefaults = false`: an optional left at null is not written).
    static func members(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (key, value) in pairs {
            if let value { members[key] = value }
        }
        return .object(members)
    }
}
