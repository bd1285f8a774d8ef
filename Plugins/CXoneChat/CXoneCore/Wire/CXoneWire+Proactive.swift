extension CXoneWire {
    /// FireProactiveAction: `{"destination": {"id"}, "proactiveAction": {"action": {"actionId", "actionName",
    /// "actionType", "data"?: {"content": {"bodyText", ...}, "handover": {"customFields"}}}}}`. A
    /// `WelcomeMessage` action's body text is shown before the customer's first message, with its
    /// ``variables`` filled in.
    package struct ProactiveAction: Sendable, Hashable, Codable {
        package var destinationId: CXoneID?
        package var actionId: String
        package var actionName: String
        /// `WelcomeMessage`, `CustomPopupBox`, ...
        package var actionType: String
        package var content: Content?
        /// The handover's custom fields (set on the contact when the customer answers).
        package var customFields: [CustomField]

        package init(
            destinationId: CXoneID? = nil,
            actionId: String,
            actionName: String,
            actionType: String,
            content: Content? = nil,
            customFields: [CustomField] = []
        ) {
            self.destinationId = destinationId
            self.actionId = actionId
            self.actionName = actionName
            self.actionType = actionType
            self.content = content
            self.customFields = customFields
        }

        /// Whether this is the channel's welcome message.
        package var isWelcomeMessage: Bool { self.actionType == "WelcomeMessage" }

        /// The texts of the action.
        package struct Content: Sendable, Hashable, Codable {
            package var bodyText: String?
            package var headlineText: String?
            package var headlineSecondaryText: String?
            package var image: String?

            package init(bodyText: String? = nil, headlineText: String? = nil, headlineSecondaryText: String? = nil, image: String? = nil) {
                self.bodyText = bodyText
                self.headlineText = headlineText
                self.headlineSecondaryText = headlineSecondaryText
                self.image = image
            }
        }

        /// A `{{name|fallback}}` placeholder in a welcome message, e.g. `{{customer.firstName|there}}`.
        package struct Variable: Sendable, Hashable {
            package var name: String
            package var fallback: String?

            package init(name: String, fallback: String? = nil) {
                self.name = name
                self.fallback = fallback
            }
        }

        /// The placeholders in ``Content/bodyText``, in order.
        package var variables: [Variable] {
            guard let text = self.content?.bodyText else { return [] }
            var result: [Variable] = []
            var rest = Substring(text)
            while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
                let inner = rest[open.upperBound..<close.lowerBound]
                let parts = inner.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts.first.map { String($0).trimmingSpaces } ?? ""
                if !name.isEmpty {
                    result.append(Variable(name: name, fallback: parts.count > 1 ? String(parts[1]) : nil))
                }
                rest = rest[close.upperBound...]
            }
            return result
        }

        enum CodingKeys: String, CodingKey { case destination, proactiveAction }
        enum ProactiveKeys: String, CodingKey { case action }
        enum ActionKeys: String, CodingKey { case actionId, actionName, actionType, data }
        enum DataKeys: String, CodingKey { case content, handover }
        enum HandoverKeys: String, CodingKey { case customFields }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.destinationId = try container.decodeIfPresent(Reference.self, forKey: .destination)?.id
            let action = try container.nestedContainer(keyedBy: ProactiveKeys.self, forKey: .proactiveAction)
                .nestedContainer(keyedBy: ActionKeys.self, forKey: .action)
            self.actionId = try action.decode(String.self, forKey: .actionId)
            self.actionName = try action.decode(String.self, forKey: .actionName)
            self.actionType = try action.decode(String.self, forKey: .actionType)
            if action.contains(.data), try !action.decodeNil(forKey: .data) {
                let data = try action.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
                self.content = try data.decodeIfPresent(Content.self, forKey: .content)
                if data.contains(.handover), try !data.decodeNil(forKey: .handover) {
                    self.customFields =
                        try data.nestedContainer(keyedBy: HandoverKeys.self, forKey: .handover)
                        .decodeIfPresent([CustomField].self, forKey: .customFields) ?? []
                } else {
                    self.customFields = []
                }
            } else {
                self.content = nil
                self.customFields = []
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let destinationId { try container.encode(Reference(id: destinationId), forKey: .destination) }
            var proactive = container.nestedContainer(keyedBy: ProactiveKeys.self, forKey: .proactiveAction)
            var action = proactive.nestedContainer(keyedBy: ActionKeys.self, forKey: .action)
            try action.encode(self.actionId, forKey: .actionId)
            try action.encode(self.actionName, forKey: .actionName)
            try action.encode(self.actionType, forKey: .actionType)
            if self.content != nil || !self.customFields.isEmpty {
                var data = action.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
                try data.encodeIfPresent(self.content, forKey: .content)
                var handover = data.nestedContainer(keyedBy: HandoverKeys.self, forKey: .handover)
                try handover.encode(self.customFields, forKey: .customFields)
            }
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
