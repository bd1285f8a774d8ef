package import AttendantPluginKit

/// Who the customer is to GMS: what `requestChat` (v2) and the chat's creation (v1) carry.
package struct GMSCustomer: Sendable, Hashable {
    package var nickname: String?
    package var firstName: String?
    package var lastName: String?
    package var email: String?
    package var subject: String?
    /// `requestChat`'s `userData`: key-value pairs the contact centre's routing and the agent's desktop
    /// read (gms-cometd.md §2), sent as strings.
    package var userData: [String: String]

    package init(
        nickname: String? = nil,
        firstName: String? = nil,
        lastName: String? = nil,
        email: String? = nil,
        subject: String? = nil,
        userData: [String: String] = [:]
    ) {
        self.nickname = nickname
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.subject = subject
        self.userData = userData
    }

    /// The name GMS shows the agent: the nickname, else first and last name, else "Customer".
    package var displayName: String {
        if let nickname = self.nickname { return nickname }
        if let first = self.firstName, let last = self.lastName { return "\(first) \(last)" }
        return "Customer"
    }
}

/// The customer's operations of GMS Chat API v2: the `data` of a publish on `/service/chatV2/<service>`
/// (gms-cometd.md §2).
package enum GMSChatV2Operation {
    /// `requestChat`: a nickname, else first and last name, else the display name as the nickname.
    package static func requestChat(_ customer: GMSCustomer) -> JSONValue {
        var data: [String: JSONValue] = ["operation": .string("requestChat")]
        if let nickname = customer.nickname {
            data["nickname"] = .string(nickname)
        } else if let first = customer.firstName, let last = customer.lastName {
            data["firstName"] = .string(first)
            data["lastName"] = .string(last)
        } else {
            data["nickname"] = .string(customer.displayName)
        }
        if let subject = customer.subject { data["subject"] = .string(subject) }
        if let email = customer.email { data["emailAddress"] = .string(email) }
        if !customer.userData.isEmpty { data["userData"] = .object(customer.userData.mapValues(JSONValue.string)) }
        return .object(data)
    }

    /// An operation of the chat (`sendMessage`, `startTyping`, `disconnect`, …) with the chat's keys and
    /// `fields` as strings; nil while the chat has no secure key.
    package static func operation(_ name: String, keys: GMSChatKeys, fields: [String: String] = [:]) -> JSONValue? {
        guard let secureKey = keys.secureKey else { return nil }
        var data: [String: JSONValue] = ["operation": .string(name), "secureKey": .string(secureKey)]
        if let userID = keys.userID { data["userId"] = .string(userID) }
        if let alias = keys.alias { data["alias"] = .string(alias) }
        for (key, value) in fields { data[key] = .string(value) }
        return .object(data)
    }

    /// `requestNotifications`: every transcript event from the position after `position`.
    package static func requestNotifications(keys: GMSChatKeys, after position: Int) -> JSONValue? {
        guard case .object(var data)? = Self.operation("requestNotifications", keys: keys) else { return nil }
        data["transcriptPosition"] = .number(Double(position + 1))
        return .object(data)
    }
}

/// GMS Chat API v1 as the seed shows it: the chat is started and driven with form POSTs under
/// `<base>/1/service/`, and each answer is read here.
package struct GMSChatV1Form: Sendable, Hashable {
    /// Under the base URL: `/1/service/…`.
    package var path: String
    package var fields: [String: String]
    /// What messages call the operation: `request-chat`, `the chat's creation`, `send`, ….
    package var what: String

    package init(path: String, fields: [String: String], what: String) {
        self.path = path
        self.fields = fields
        self.what = what
    }

    /// `request-chat` (or the configured service): GMS makes a service for the chat and answers its `_id`.
    package static func requestChat(service: String, subject: String?) -> GMSChatV1Form {
        var fields = ["_verbose": "true"]
        if let subject { fields["subject"] = subject }
        return GMSChatV1Form(path: "/1/service/\(service)", fields: fields, what: "request-chat")
    }

    /// `…/ixn/chat` with `notify_by=comet`: GMS answers with the chat's keys and its first rows.
    package static func createInteraction(serviceID: String, customer: GMSCustomer) -> GMSChatV1Form {
        var fields = ["_verbose": "true", "notify_by": "comet", "userDisplayName": customer.displayName]
        if let first = customer.firstName { fields["firstName"] = first }
        if let last = customer.lastName { fields["lastName"] = last }
        if let email = customer.email { fields["email"] = email }
        if let subject = customer.subject { fields["subject"] = subject }
        return GMSChatV1Form(path: "/1/service/\(serviceID)/ixn/chat", fields: fields, what: "the chat's creation")
    }

    /// An operation of the chat (`send`, `startTyping`, `stopTyping`, `disconnect`, `refresh`): its answer
    /// carries rows as an event does.
    package static func operation(_ name: String, serviceID: String, fields: [String: String] = [:]) -> GMSChatV1Form {
        var fields = fields
        fields["_verbose"] = "true"
        return GMSChatV1Form(path: "/1/service/\(serviceID)/ixn/chat/\(name)", fields: fields, what: name)
    }

    /// `refresh` with the highest position shown: GMS answers with the rows after it.
    package static func refresh(serviceID: String, after position: Int) -> GMSChatV1Form {
        Self.operation("refresh", serviceID: serviceID, fields: ["transcriptPosition": String(position)])
    }

    /// The body, `application/x-www-form-urlencoded`, fields in key order.
    package var body: [UInt8] {
        let pairs = self.fields.sorted { $0.key < $1.key }.map { "\(Self.formEncoded($0.key))=\(Self.formEncoded($0.value))" }
        return Array(pairs.joined(separator: "&").utf8)
    }

    /// Unreserved characters as they are, spaces as `+`, the rest percent-encoded as UTF-8.
    package static func formEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "*"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                encoded += "+"
            default:
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return encoded
    }

    /// Why an answer is not one to go on with.
    package struct Refusal: Error, Sendable, Hashable {
        /// A 5xx answer: worth another try.
        package var transient: Bool
        /// `answered HTTP 502 with 12 bytes that are not a GMS reply (…)`, `was refused (HTTP 400): …`.
        package var reason: String

        package init(transient: Bool, reason: String) {
            self.transient = transient
            self.reason = reason
        }
    }

    /// The JSON object a 2xx answer holds. Otherwise the refusal says why: GMS's `message` (or
    /// `exception`) for an error status, or that the body is not a GMS reply at all.
    package static func answer(status: Int, body: [UInt8]) -> Result<[String: JSONValue], Refusal> {
        let transient = (500..<600).contains(status)
        let object: [String: JSONValue]
        do {
            guard case .object(let parsed) = try JSONValue.parse(body) else {
                throw GMSDecodeError(problem: "the answer is not a JSON object")
            }
            object = parsed
        } catch {
            return .failure(
                Refusal(transient: transient, reason: "answered HTTP \(status) with \(body.count) bytes that are not a GMS reply (\(error))")
            )
        }
        guard (200..<300).contains(status) else {
            let reason = object["message"]?.stringValue ?? object["exception"]?.stringValue ?? "no reason given"
            return .failure(Refusal(transient: transient, reason: "was refused (HTTP \(status)): \(reason)"))
        }
        return .success(object)
    }

    /// The service id in `request-chat`'s answer.
    package static func serviceID(in reply: [String: JSONValue]) throws(GMSDecodeError) -> String {
        guard let serviceID = reply["_id"]?.stringValue, !serviceID.isEmpty else {
            throw GMSDecodeError(problem: "the answer has no service id (_id)")
        }
        return serviceID
    }

    /// The chat's keys and first rows in the creation's answer. Without a `secureKey`, the service id
    /// stands for it (the seed's GMS version sends none).
    package static func created(_ reply: [String: JSONValue], serviceID: String) throws(GMSDecodeError) -> (GMSChatKeys, GMSChatV1Event) {
        let event = try Self.event(reply, serviceID: serviceID)
        let keys = GMSChatKeys(
            secureKey: reply["secureKey"]?.stringValue ?? serviceID,
            chatID: event.chatSessionID,
            userID: reply["userId"]?.stringValue,
            serviceID: serviceID
        )
        return (keys, event)
    }

    /// An answer read as the chat interaction it carries: the same `message` a `/_genesys` event of the
    /// chat's service holds.
    package static func event(_ reply: [String: JSONValue], serviceID: String) throws(GMSDecodeError) -> GMSChatV1Event {
        try GMSChatV1Event(decoding: .object(["tag": .string(GMSChatV1Event.tagPrefix + serviceID), "message": .object(reply)]))
    }
}
