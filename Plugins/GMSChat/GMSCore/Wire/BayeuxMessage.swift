// One Bayeux 1.0 message (CometD's Bayeux specification, "Message Field Definitions"): the fields the
// protocol itself defines, each typed, and the application's `data` and the extensions' `ext` as JSON.
//
// The wire folder imports only the kit's JSONValue, so the fuzz target (Fuzz/BayeuxDecoder) compiles it
// alone with JSONValue.swift.
#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

package struct BayeuxMessage: Sendable, Hashable {
    /// `/meta/handshake`, `/service/chatV2/support`, `/_genesys`…: every message has exactly one.
    package var channel: String
    /// Correlates a reply with its request. Events may carry their publisher's id too (the spec allows
    /// it and Faye does it), so an id alone never makes a message a reply: see ``isReply``.
    package var id: String?
    package var clientID: String?
    /// Present in every reply to handshake, connect, subscribe, unsubscribe, disconnect and publish.
    package var successful: Bool?
    /// `code:args:message`, as the server sent it.
    package var error: String?
    package var advice: BayeuxAdvice?
    package var data: JSONValue?
    /// Extension fields (`ext`): an object, or nil.
    package var ext: [String: JSONValue]?
    /// The channel names of a subscribe or unsubscribe, and of their replies.
    package var subscription: [String]?
    package var version: String?
    package var minimumVersion: String?
    package var supportedConnectionTypes: [String]?
    package var connectionType: String?

    package init(channel: String, id: String? = nil, clientID: String? = nil, data: JSONValue? = nil, ext: [String: JSONValue]? = nil) {
        self.channel = channel
        self.id = id
        self.clientID = clientID
        self.data = data
        self.ext = ext
    }

    /// A reply to a request of this client: one with `successful`. An event never has it.
    package var isReply: Bool { self.successful != nil }

    /// `/meta/*`: the protocol's own channels.
    package var isMeta: Bool { self.channel.hasPrefix("/meta/") }

    /// The error's numeric code (`402` of `402::Unknown client`), when it starts with one.
    package var errorCode: Int? {
        guard let error = self.error, let end = error.firstIndex(of: ":") else { return nil }
        return Int(error[..<end])
    }

    /// The message as a JSON object, every absent field left out.
    package var json: JSONValue {
        var object: [String: JSONValue] = ["channel": .string(self.channel)]
        if let id = self.id { object["id"] = .string(id) }
        if let clientID = self.clientID { object["clientId"] = .string(clientID) }
        if let successful = self.successful { object["successful"] = .bool(successful) }
        if let error = self.error { object["error"] = .string(error) }
        if let advice = self.advice { object["advice"] = advice.json }
        if let data = self.data { object["data"] = data }
        if let ext = self.ext { object["ext"] = .object(ext) }
        if let subscription = self.subscription {
            object["subscription"] = subscription.count == 1 ? .string(subscription[0]) : .array(subscription.map(JSONValue.string))
        }
        if let version = self.version { object["version"] = .string(version) }
        if let minimumVersion = self.minimumVersion { object["minimumVersion"] = .string(minimumVersion) }
        if let types = self.supportedConnectionTypes { object["supportedConnectionTypes"] = .array(types.map(JSONValue.string)) }
        if let connectionType = self.connectionType { object["connectionType"] = .string(connectionType) }
        return .object(object)
    }
}

// MARK: - Batches

/// What goes over the wire: a JSON array of messages (the spec's SHOULD, and what every peer sends).
package enum BayeuxBatch {
    /// The bytes of a request body or a WebSocket text frame.
    package static func encode(_ messages: [BayeuxMessage]) -> [UInt8] {
        JSONValue.array(messages.map(\.json)).encoded()
    }

    /// The limits a decoder enforces, so a hostile or broken server cannot make the daemon hold or walk
    /// unbounded input.
    package struct Limits: Sendable, Hashable {
        package var maximumBytes: Int
        package var maximumMessages: Int

        package init(maximumBytes: Int = 4 << 20, maximumMessages: Int = 20_000) {
            self.maximumBytes = maximumBytes
            self.maximumMessages = maximumMessages
        }
    }

    /// Decodes a body: an array of messages, or a single message object (peers MAY send one alone).
    /// A message that is not a Bayeux message fails the batch: the server's reply can no longer be
    /// trusted to be what it says, and the error names the problem and the element, not the content.
    package static func decode(_ bytes: some Collection<UInt8>, limits: Limits = Limits()) throws(BayeuxDecodeError) -> [BayeuxMessage] {
        guard bytes.count <= limits.maximumBytes else {
            throw BayeuxDecodeError(problem: "the batch has \(bytes.count) bytes, over the limit of \(limits.maximumBytes)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw BayeuxDecodeError(problem: "not JSON (\(error))")
        }
        switch value {
        case .array(let elements):
            guard elements.count <= limits.maximumMessages else {
                throw BayeuxDecodeError(problem: "the batch has \(elements.count) messages, over the limit of \(limits.maximumMessages)")
            }
            var messages: [BayeuxMessage] = []
            messages.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    messages.append(try BayeuxMessage(decoding: element))
                } catch {
                    throw BayeuxDecodeError(problem: "message \(index + 1) of \(elements.count): \(error.problem)")
                }
            }
            return messages
        case .object:
            return [try BayeuxMessage(decoding: value)]
        default:
            throw BayeuxDecodeError(problem: "the batch is \(value.typeDescription), not an array of messages")
        }
    }
}

/// Why a batch could not be read. It names the field and the type found, never the content, which may be
/// a customer's chat.
package struct BayeuxDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    package var problem: String
    package var description: String { self.problem }

    package init(problem: String) { self.problem = problem }
}

extension BayeuxMessage {
    /// Reads one message. Unknown fields are ignored, as the spec lets peers add their own.
    package init(decoding value: JSONValue) throws(BayeuxDecodeError) {
        guard case .object(let object) = value else {
            throw BayeuxDecodeError(problem: "a message is \(value.typeDescription), not an object")
        }
        guard case .string(let channel)? = object["channel"], channel.hasPrefix("/") else {
            throw BayeuxDecodeError(problem: Self.wrong("channel", object["channel"], expected: "a channel name"))
        }
        self.init(channel: channel)
        // Ids are strings on the wire; some servers send numbers, which mean the same.
        switch object["id"] {
        case nil, .null?: break
        case .string(let id)?: self.id = id
        case .number(let number)? where number == number.rounded() && abs(number) < 1e15: self.id = String(Int64(number))
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("id", other, expected: "a string"))
        }
        self.clientID = try Self.string("clientId", object)
        switch object["successful"] {
        case nil, .null?: break
        case .bool(let successful)?: self.successful = successful
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("successful", other, expected: "a boolean"))
        }
        self.error = try Self.string("error", object)
        switch object["advice"] {
        case nil, .null?: break
        case .object(let advice)?: self.advice = BayeuxAdvice(decoding: advice)
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("advice", other, expected: "an object"))
        }
        self.data = object["data"]
        switch object["ext"] {
        case nil, .null?: break
        case .object(let ext)?: self.ext = ext
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("ext", other, expected: "an object"))
        }
        switch object["subscription"] {
        case nil, .null?: break
        case .string(let name)?: self.subscription = [name]
        case .array(let names)?:
            self.subscription = try names.map { name throws(BayeuxDecodeError) in
                guard case .string(let name) = name else {
                    throw BayeuxDecodeError(problem: Self.wrong("subscription", name, expected: "channel names"))
                }
                return name
            }
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("subscription", other, expected: "a channel name or an array of them"))
        }
        self.version = try Self.string("version", object)
        self.minimumVersion = try Self.string("minimumVersion", object)
        self.connectionType = try Self.string("connectionType", object)
        switch object["supportedConnectionTypes"] {
        case nil, .null?: break
        case .array(let types)?: self.supportedConnectionTypes = types.compactMap(\.stringValue)
        case let other?: throw BayeuxDecodeError(problem: Self.wrong("supportedConnectionTypes", other, expected: "an array"))
        }
    }

    private static func string(_ key: String, _ object: [String: JSONValue]) throws(BayeuxDecodeError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw BayeuxDecodeError(problem: Self.wrong(key, other, expected: "a string"))
        }
    }

    private static func wrong(_ key: String, _ value: JSONValue?, expected: String) -> String {
        "field \"\(key)\" is \(value?.typeDescription ?? "missing"), expected \(expected)"
    }
}
