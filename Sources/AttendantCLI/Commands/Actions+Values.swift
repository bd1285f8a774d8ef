import ArgumentParser

/// --value KEY=VALUE and --values JSON, the fields of an in-app action event.
struct ActionValues: ParsableArguments {
    @Option(
        name: .customLong("value"),
        help: ArgumentHelp(
            "A field of the event, such as --value plan=gold or --value age=30; VALUE is JSON when it parses as JSON, else text. Repeat for more.",
            valueName: "key=value"
        )
    )
    var pairs: [String] = []

    @Option(
        name: .customLong("values"),
        help: ArgumentHelp(#"The event's fields as a JSON object, such as --values '{"plan":"gold","age":30}'."#, valueName: "json")
    )
    var object: String?

    func validate() throws { _ = try self.fields() }

    /// The fields, --values first and then --value (which wins), in the order given; a usage error
    /// for a malformed --value, a key given twice with --value, or --values that is not an object.
    func fields() throws -> [(String, JSON)] {
        var fields: [(String, JSON)] = []
        func set(_ key: String, _ value: JSON) {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = value
            } else {
                fields.append((key, value))
            }
        }
        if let object = self.object {
            let example = #"such as --values '{"plan":"gold","age":30}'"#
            let parsed: JSON
            do {
                parsed = try JSON.parse(object)
            } catch {
                throw ValidationError("--values is not JSON: \(error); give a JSON object, \(example)")
            }
            guard let members = parsed.members else {
                throw ValidationError("--values must be a JSON object, not \(parsed.text); give one \(example)")
            }
            for (key, value) in members {
                guard !key.isEmpty else { throw ValidationError("--values has an empty key; every field needs a name") }
                set(key, value)
            }
        }
        var given: Set<String> = []
        for pair in self.pairs {
            let (key, value) = try Self.pair(pair)
            guard given.insert(key).inserted else { throw ValidationError("--value \(key) is given twice; give each field once") }
            set(key, value)
        }
        return fields
    }

    /// The fields as the JSON object text the channel takes, or nil when there are none.
    func text() throws -> String? {
        let fields = try self.fields()
        return fields.isEmpty ? nil : JSON.object(fields).text
    }

    /// `KEY=VALUE` split at the first `=`; VALUE is JSON if it is JSON, else the text itself.
    static func pair(_ pair: String) throws -> (String, JSON) {
        guard let equals = pair.firstIndex(of: "=") else {
            throw ValidationError("--value \"\(pair)\": expected KEY=VALUE, such as --value plan=gold or --value age=30")
        }
        guard equals != pair.startIndex else {
            throw ValidationError("--value \"\(pair)\": the field name before = is empty; give KEY=VALUE, such as --value plan=gold")
        }
        let text = String(pair[pair.index(after: equals)...])
        let key = String(pair[..<equals])
        switch try? JSON.parse(text) {
        case .double? where !text.contains(where: { ".eE".contains($0) }):
            // An integer too long for 64 bits (an id, a card number) would lose digits as a double.
            return (key, .string(text))
        case let value?:
            return (key, value)
        case nil:
            return (key, .string(text))
        }
    }
}
