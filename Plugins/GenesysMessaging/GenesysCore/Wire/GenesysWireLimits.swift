#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// How much the decoders read before they refuse a document. The SDK sets no limits of its own (it
/// hands the whole text to kotlinx.serialization); these are ours, chosen well above what a real frame
/// holds so that only a broken or hostile peer meets them.
package struct GenesysWireLimits: Sendable, Hashable {
    /// Bytes of one document.
    package var maximumBytes: Int
    /// Nesting of arrays and objects. The deepest real frame (a carousel's card action inside the
    /// envelope) is 8 deep.
    package var maximumDepth: Int

    package init(maximumBytes: Int, maximumDepth: Int = 32) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = min(maximumDepth, JSONValue.maximumDepth)
    }

    /// One socket frame: 1 MiB (decided; a text message is at most a few KB, attachments travel by URL).
    package static let frame = GenesysWireLimits(maximumBytes: 1 << 20)
    /// One history page (`GET …/webmessaging/messages`): 8 MiB (decided; 25 messages by default).
    package static let historyPage = GenesysWireLimits(maximumBytes: 8 << 20)
    /// The deployment's config.json: 1 MiB (decided).
    package static let deploymentConfig = GenesysWireLimits(maximumBytes: 1 << 20)

    /// Parses `bytes` as one JSON document within the limits.
    package func parse(_ bytes: some Collection<UInt8>, what: String) throws(GenesysWireError) -> JSONValue {
        guard bytes.count <= self.maximumBytes else {
            throw GenesysWireError(.tooLarge, "the \(what) is \(bytes.count) bytes, more than the limit of \(self.maximumBytes)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            if error.problem == "nested too deeply" {
                throw GenesysWireError(.tooDeep, "the \(what) is nested more than \(self.maximumDepth) deep")
            }
            throw GenesysWireError(.notJSON, "the \(what) is not JSON: \(error)")
        }
        guard Self.depth(of: value, limit: self.maximumDepth) <= self.maximumDepth else {
            throw GenesysWireError(.tooDeep, "the \(what) is nested more than \(self.maximumDepth) deep")
        }
        return value
    }

    /// The nesting depth of `value` (a scalar is 0), counted without recursion and given up on past `limit`.
    static func depth(of value: JSONValue, limit: Int) -> Int {
        var deepest = 0
        var pending: [(JSONValue, Int)] = [(value, 0)]
        while let (next, depth) = pending.popLast() {
            let children: [JSONValue]
            switch next {
            case .array(let values): children = values
            case .object(let members): children = Array(members.values)
            default: continue
            }
            deepest = max(deepest, depth + 1)
            if deepest > limit { return deepest }
            pending.append(contentsOf: children.map { ($0, depth + 1) })
        }
        return deepest
    }
}
