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
        /// The choices of a `list` field: what is shown, and what is sent.
        public var values: [(name: String, value: String)]

        public init(id: String, label: String, type: String, isRequired: Bool = false, values: [(name: String, value: String)] = []) {
            self.id = id
            self.label = label
            self.type = type
            self.isRequired = isRequired
            self.values = values
        }

        public static func == (lhs: Field, rhs: Field) -> Bool {
            lhs.id == rhs.id && lhs.label == rhs.label && lhs.type == rhs.type && lhs.isRequired == rhs.isRequired
                && lhs.values.elementsEqual(rhs.values) { $0.name == $1.name && $0.value == $1.value }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(self.id)
            hasher.combine(self.type)
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
