/// The pre-chat form a channel configuration announces: a name and its fields. On the wire
/// `{"name", "customFields": [{"isRequired", "definition": {"fieldId", "label", "type", "values"?:
/// [{"name", "value"}]}}]}`.
package struct CXoneGatewayPreContactForm: Sendable, Hashable {
    package var name: String
    package var fields: [Field]

    package init(name: String, fields: [Field] = []) {
        self.name = name
        self.fields = fields
    }

    /// One question of the form; its answer comes back as a contact custom field named ``id``.
    package struct Field: Sendable, Hashable {
        package var id: String
        package var label: String
        /// `text`, `email`, `list`, …
        package var type: String
        package var isRequired: Bool
        /// The choices of a `list` field.
        package var values: [Choice]

        package init(id: String, label: String, type: String, isRequired: Bool = false, values: [Choice] = []) {
            self.id = id
            self.label = label
            self.type = type
            self.isRequired = isRequired
            self.values = values
        }
    }

    /// A choice of a list field: what is shown (`name`) and what is sent back (`value`).
    package struct Choice: Sendable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
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
