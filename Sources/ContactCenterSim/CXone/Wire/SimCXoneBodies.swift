import Foundation

// The JSON the gateway writes for its records (shapes of the CXone mobile SDK's received DTOs). Optional
// members are left out when there is nothing to say, never written as null.

extension CXoneGatewayThread {
    /// `{"idOnExternalPlatform", "id": "{channel}_{thread}", "channelId", "threadName"?, "canAddMoreMessages"}`.
    func json(channelId: String) -> GMSJSON {
        var object: GMSJSON = [
            "idOnExternalPlatform": .string(self.id),
            "id": .string("\(channelId)_\(self.id)"),
            "channelId": .string(channelId),
            "canAddMoreMessages": true,
        ]
        if let name { object["threadName"] = .string(name) }
        return object
    }

    /// The contact (`case`): `{"id", "threadIdOnExternalPlatform", "status", "createdAt"}`.
    var contactJSON: GMSJSON {
        [
            "id": .string(self.contact.id),
            "threadIdOnExternalPlatform": .string(self.id),
            "status": .string(self.contact.status),
            "createdAt": .string(SimCXoneTime.format(self.contact.createdAt)),
        ]
    }
}

extension CXoneGatewayMessage {
    /// `{"idOnExternalPlatform", "threadIdOnExternalPlatform", "messageContent", "createdAt", "attachments",
    /// "direction", "authorUser"? | "authorEndUserIdentity"?, "userStatistics"?}`.
    var json: GMSJSON {
        var object: GMSJSON = [
            "idOnExternalPlatform": .string(self.id),
            "threadIdOnExternalPlatform": .string(self.threadId),
            "messageContent": self.content,
            "createdAt": .string(SimCXoneTime.format(self.createdAt)),
            "attachments": .array(self.attachments),
            "direction": .string(self.direction.rawValue),
        ]
        if let agent { object["authorUser"] = agent.json }
        if let customer { object["authorEndUserIdentity"] = customer.json }
        if let seen = self.seenByAgentAt {
            let time = GMSJSON.string(SimCXoneTime.format(seen))
            object["userStatistics"] = ["seenAt": time, "readAt": time]
        }
        return object
    }

    /// A TEXT `messageContent`.
    static func textContent(_ text: String) -> GMSJSON {
        ["type": "TEXT", "payload": ["text": .string(text)]]
    }
}

extension CXoneGatewayAgent {
    /// `{"id", "firstName"?, "surname"?, "nickname"?}`.
    var json: GMSJSON {
        var object: GMSJSON = ["id": .int(self.id)]
        if let firstName { object["firstName"] = .string(firstName) }
        if let surname { object["surname"] = .string(surname) }
        if let nickname { object["nickname"] = .string(nickname) }
        return object
    }
}

/// The REST bodies: availability and the service's error answer.
enum SimCXoneREST {
    /// `{"status": "online" | "offline"}`.
    static func availability(isOnline: Bool) -> GMSJSON { ["status": .string(isOnline ? "online" : "offline")] }

    /// `{"error": {"errorCode", "errorMessage"}}`: how CXone's REST endpoints refuse.
    static func serviceError(_ code: String, _ message: String) -> GMSJSON {
        ["error": ["errorCode": .string(code), "errorMessage": .string(message)]]
    }
}
