/// The customer identity a frame carries (`customerIdentity` or `consumerIdentity`):
/// `{"idOnExternalPlatform", "firstName"?, "lastName"?}`. The gateway writes back only these members
/// (ConsumerAuthorized, a message's `authorEndUserIdentity`), whatever else a client put beside them.
struct SimCXoneCustomer: Sendable, Hashable {
    var id: String
    var firstName: String?
    var lastName: String?

    /// The identity of a frame; nil without an `idOnExternalPlatform` string.
    init?(_ json: GMSJSON) {
        guard let id = json["idOnExternalPlatform"]?.string else { return nil }
        self.init(id: id, firstName: json["firstName"]?.string, lastName: json["lastName"]?.string)
    }

    init(id: String, firstName: String? = nil, lastName: String? = nil) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
    }

    var json: GMSJSON {
        var object: GMSJSON = ["idOnExternalPlatform": .string(self.id)]
        if let firstName { object["firstName"] = .string(firstName) }
        if let lastName { object["lastName"] = .string(lastName) }
        return object
    }
}

extension SimCXoneID {
    /// Whether two ids name the same thing (CXone compares them without regard to case).
    static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs, let rhs else { return false }
        return self.key(lhs) == self.key(rhs)
    }
}
