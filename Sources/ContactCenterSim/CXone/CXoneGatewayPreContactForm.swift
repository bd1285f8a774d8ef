/// The pre-chat form a channel configuration announces: a name and its fields. On the wire
/// `{"name", "customFields": [{"isRequired", "definition": {"fieldId", "label", "type", "values"?:
/// [{"name", "value"}]}}]}`.
public struct CXoneGatewayPreContactForm: Sendable, Hashable {
    public var name: String
    public var fields: [Field]

    public init(name: String, fields: [Field] = []) {
        self.name = name
        self.fields = fields
    }

    /// One question of the form; its answer comes back as a contact custom field named ``id``.
    public struct Field: Sendable, Hashable {
        public var id: String
        public var label: String
        /// `text`, `email`, `list`, …
        public var type: String
        public var isRequired: Bool
        /// The choices of a `list` field.
        public var values: [Choice]

        public init(id: String, label: String, type: String, isRequired: Bool = false, values: [Choice] = []) {
            self.id = id
            self.label = label
            self.type = type
            self.isRequired = isRequired
            self.values = values
        }
    }

    /// A choice of a list field: what is shown (`name`) and what is sent back (`value`).
    public struct Choice: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The form as the channel configuration carries it; `values` only for fields that have choices.
    var json: GMSJSON {
        let fields: [GMSJSON] = self.fields.map { field in
            var definition: GMSJSON = ["fieldId": .string(field.id), "label": .string(field.label), "type": .string(field.type)]
            if !field.values.isEmpty {
                definition["values"] = .array(field.values.map { ["name": .string($0.name), "value": .string($0.value)] })
            }
            return ["isRequired": .bool(field.isRequired), "definition": definition]
        }
        return ["name": .string(self.name), "customFields": .array(fields)]
    }
}
