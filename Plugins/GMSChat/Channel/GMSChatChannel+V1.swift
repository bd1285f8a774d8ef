import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Synchronization

// GMS Chat API v1, as the seed shows it: the chat is started and driven with form POSTs under
// `<base>/1/service/`, each carrying the `gms_user` header that ties it to this client's CometD requests;
// its events arrive on `/_genesys` (see GMSChatChannel+Session).
extension GMSChatChannel {
    /// `request-chat` makes the chat's service; the interaction is created once the CometD session has
    /// connected (as GMS's own clients do), so no event of it can be missed.
    func requestChatV1() async throws {
        var fields = ["_verbose": "true"]
        if let subject = self.configuration.subject { fields["subject"] = subject }
        let reply = try await self.postV1Form(path: "/1/service/\(self.configuration.service)", fields: fields, what: "request-chat")
        guard let serviceID = reply["_id"]?.stringValue, !serviceID.isEmpty else {
            throw ChannelError(.server, "\(self.prefix): \(self.serverDescription) answered request-chat without a service id (_id)")
        }
        self.driver.step { $0.v1ServiceMade(serviceID) }
    }

    /// `…/ixn/chat` with `notify_by=comet`: GMS answers with the chat's keys and its first rows.
    func createV1Interaction(serviceID: String) async {
        var fields = ["_verbose": "true", "notify_by": "comet", "userDisplayName": self.configuration.displayName]
        if let first = self.configuration.firstName { fields["firstName"] = first }
        if let last = self.configuration.lastName { fields["lastName"] = last }
        if let email = self.configuration.email { fields["email"] = email }
        if let subject = self.configuration.subject { fields["subject"] = subject }
        do {
            let reply = try await self.postV1Form(path: "/1/service/\(serviceID)/ixn/chat", fields: fields, what: "the chat's creation")
            let event = try Self.v1Event(reply, serviceID: serviceID)
            let keys = GMSChatKeys(
                secureKey: reply["secureKey"]?.stringValue ?? serviceID, chatID: event.chatSessionID, userID: reply["userId"]?.stringValue, serviceID: serviceID
            )
            let now = self.host.now()
            self.driver.step { $0.v1Created(keys, event, now: now) }
        } catch {
            let failure = error as? ChannelError ?? ChannelError(.server, "\(self.prefix): the chat's creation answer from \(self.serverDescription) is not valid: \(error)")
            self.driver.step { $0.startFailed(failure) }
        }
    }

    /// `refresh` with the highest position shown: GMS answers with the rows after it. Whether it worked.
    func refreshV1(after position: Int) async -> Bool {
        do {
            let reply = try await self.postV1Form(operation: "refresh", fields: ["transcriptPosition": String(position), "_verbose": "true"])
            guard let serviceID = self.serviceID else { return true }
            self.received(try Self.v1Event(reply, serviceID: serviceID))
            return true
        } catch {
            self.host.logger.warning("\(self.prefix): asking \(self.serverDescription) for the chat's events after position \(position) failed: \(error); asking again once connected")
            return false
        }
    }

    /// An operation of the chat: `send`, `startTyping`, `stopTyping`, `disconnect`. Its answer carries
    /// rows like an event does.
    func postV1(_ operation: String, fields: [String: String]) async throws {
        var fields = fields
        fields["_verbose"] = "true"
        let reply = try await self.postV1Form(operation: operation, fields: fields)
        if let serviceID = self.serviceID, let event = try? Self.v1Event(reply, serviceID: serviceID) {
            self.received(event)
        }
    }

    func postV1Form(operation: String, fields: [String: String]) async throws -> [String: JSONValue] {
        guard let serviceID = self.serviceID else {
            throw ChannelError(.illegalState, "\(self.prefix): there is no chat; start one with `attendantctl chat connect`")
        }
        return try await self.postV1Form(path: "/1/service/\(serviceID)/ixn/chat/\(operation)", fields: fields, what: operation)
    }

    /// The chat's service (v1), if there is a chat.
    var serviceID: String? {
        self.driver.withSession { $0.keys?.serviceID } ?? nil
    }

    /// A v1 event the chat's REST answers carry, for the session.
    func received(_ event: GMSChatV1Event) {
        let now = self.host.now()
        self.driver.step { $0.received(event, now: now) }
    }

    /// POSTs a form under the base URL with `gms_user`, and reads the JSON object GMS answers.
    func postV1Form(path: String, fields: [String: String], what: String) async throws -> [String: JSONValue] {
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.formEncoded($0.key))=\(Self.formEncoded($0.value))" }.joined(separator: "&")
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.baseURL + path,
            headers: [
                NetworkHeader("Content-Type", "application/x-www-form-urlencoded"),
                NetworkHeader("gms_user", self.configuration.gmsUser),
            ],
            body: Array(body.utf8),
            timeout: self.configuration.machine.networkDelay
        )
        let response: NetworkResponse
        do {
            response = try await self.host.network.send(request)
        } catch {
            throw ChannelError(.transient, "\(self.prefix): \(what) at \(self.serverDescription) failed: \(error.message)")
        }
        let object: [String: JSONValue]
        do {
            guard case .object(let parsed) = try JSONValue.parse(response.body) else {
                throw GMSDecodeError(problem: "the answer is not a JSON object")
            }
            object = parsed
        } catch {
            throw ChannelError(
                (500..<600).contains(response.status) ? .transient : .server,
                "\(self.prefix): \(what) at \(self.serverDescription) answered HTTP \(response.status) with \(response.body.count) bytes that are not a GMS reply (\(error))"
            )
        }
        guard (200..<300).contains(response.status) else {
            let reason = object["message"]?.stringValue ?? object["exception"]?.stringValue ?? "no reason given"
            throw ChannelError((500..<600).contains(response.status) ? .transient : .server, "\(self.prefix): \(what) at \(self.serverDescription) was refused (HTTP \(response.status)): \(reason)")
        }
        return object
    }

    /// A REST reply read as the chat interaction it carries: the same `message` a `/_genesys` event of
    /// the chat's service holds.
    static func v1Event(_ reply: [String: JSONValue], serviceID: String) throws(GMSDecodeError) -> GMSChatV1Event {
        try GMSChatV1Event(decoding: .object(["tag": .string(GMSChatV1Event.tagPrefix + serviceID), "message": .object(reply)]))
    }

    /// `application/x-www-form-urlencoded`: unreserved characters as they are, spaces as `+`, the rest
    /// percent-encoded as UTF-8.
    static func formEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "*"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                encoded += "+"
            default:
                let digits = Array("0123456789ABCDEF")
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return encoded
    }
}
