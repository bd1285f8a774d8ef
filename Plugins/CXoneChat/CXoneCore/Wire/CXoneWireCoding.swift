internal import FoundationEssentials

/// A value the wire's own checks refused while decoding (a timestamp, a direction, a URL scheme); thrown
/// from `init(from:)` through JSONDecoder and turned into a ``CXoneWireError`` with its path.
struct CXoneInvalidValue: Error {
    var codingPath: [any CodingKey]
    var what: String
}

/// JSON of none of the shapes the decoder knows.
struct CXoneUnrecognizedFrame: Error {
    var what: String
}

/// A decoding failure inside the data of a known event type, so the message can name the type.
struct CXoneEventDataFailure: Error {
    var eventType: String
    var underlying: any Error
}

/// The JSON machinery shared by every decoder and encoder in Wire/: limits first, then JSONDecoder with
/// the hand-written timestamp reader, and one translation of its errors into ``CXoneWireError``.
enum CXoneWireCoding {
    static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: [UInt8],
        limits: CXoneWireLimits,
        subject: String
    ) throws(CXoneWireError) -> T {
        try self.preflight(bytes, limits: limits, subject: subject)
        do {
            return try self.decoder.decode(T.self, from: Data(bytes))
        } catch {
            throw self.translate(error, subject: "\(subject) \(self.size(bytes.count))", eventType: nil)
        }
    }

    /// One configured decoder and encoder for all calls (both are thread-safe once configured).
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = CXoneTimestamp.parse(text) else {
                throw CXoneInvalidValue(codingPath: decoder.codingPath, what: "is not an ISO-8601 timestamp")
            }
            return date
        }
        return decoder
    }()

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(CXoneTimestamp.format(date))
        }
        return encoder
    }()

    static func encode(_ value: some Encodable, subject: String) throws(CXoneWireError) -> [UInt8] {
        do {
            return Array(try self.encoder.encode(value))
        } catch {
            throw CXoneWireError(.encoding, "\(subject): cannot be encoded (a number that is not finite)")
        }
    }

    /// Size and nesting depth, checked on the raw bytes before JSONDecoder sees them.
    static func preflight(_ bytes: [UInt8], limits: CXoneWireLimits, subject: String) throws(CXoneWireError) {
        guard bytes.count <= limits.maxFrameSize else {
            throw CXoneWireError(
                .frameTooLarge,
                "\(subject) \(self.size(bytes.count)): larger than the limit of \(self.size(limits.maxFrameSize))"
            )
        }
        var depth = 0
        var inString = false
        var escaped = false
        var sawContent = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22:
                inString = true
                sawContent = true
            case 0x5B, 0x7B:
                depth += 1
                sawContent = true
                if depth > limits.maxDepth {
                    throw CXoneWireError(
                        .tooDeep,
                        "\(subject) \(self.size(bytes.count)): nested deeper than the limit of \(limits.maxDepth)"
                    )
                }
            case 0x5D, 0x7D:
                depth -= 1
            case 0x20, 0x09, 0x0A, 0x0D:
                break
            default:
                sawContent = true
            }
        }
        guard sawContent else {
            throw CXoneWireError(.notJSON, "\(subject) \(self.size(bytes.count)): is empty")
        }
    }

    /// JSONDecoder's and the wire's own failures as one ``CXoneWireError``.
    static func translate(_ error: any Error, subject: String, eventType: String?) -> CXoneWireError {
        let inType = eventType.map { " in \(self.label($0))" } ?? ""
        switch error {
        case let failure as CXoneEventDataFailure:
            return self.translate(failure.underlying, subject: subject, eventType: failure.eventType)
        case let wire as CXoneWireError:
            return wire
        case let unrecognized as CXoneUnrecognizedFrame:
            return CXoneWireError(.unrecognized, "\(subject): \(unrecognized.what)")
        case let invalid as CXoneInvalidValue:
            return CXoneWireError(.invalidValue, "\(subject): \(self.path(invalid.codingPath)) \(invalid.what)\(inType)")
        case let decoding as DecodingError:
            switch decoding {
            case .keyNotFound(let key, let context):
                return CXoneWireError(
                    .missingField,
                    "\(subject): \(self.path(context.codingPath + [key])) is missing\(inType)"
                )
            case .valueNotFound(_, let context):
                return CXoneWireError(.missingField, "\(subject): \(self.path(context.codingPath)) is null\(inType)")
            case .typeMismatch(let type, let context):
                return CXoneWireError(
                    .wrongType,
                    "\(subject): \(self.path(context.codingPath)) is not \(self.expected(type))\(inType)"
                )
            case .dataCorrupted(let context):
                if context.codingPath.isEmpty {
                    return CXoneWireError(.notJSON, "\(subject): is not valid JSON")
                }
                return CXoneWireError(.invalidValue, "\(subject): \(self.path(context.codingPath)) is not a valid value\(inType)")
            @unknown default:
                return CXoneWireError(.invalidValue, "\(subject): cannot be decoded\(inType)")
            }
        default:
            return CXoneWireError(.invalidValue, "\(subject): cannot be decoded\(inType)")
        }
    }

    /// `data.messages[2].createdAt`; the top level is `top level`.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                let name = self.label(key.stringValue)
                text += text.isEmpty ? name : "." + name
            }
        }
        return text.isEmpty ? "top level" : text
    }

    static func expected(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a \(type)"
        }
    }

    /// A name from the wire (event type, key), fit to quote: at most 48 printable ASCII characters.
    static func label(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars.prefix(48) {
            text.unicodeScalars.append(scalar.value >= 0x20 && scalar.value < 0x7F ? scalar : "?")
        }
        return name.unicodeScalars.count > 48 ? text + "…" : text
    }

    /// `812 B`, `2 KiB`, `1.5 MiB`.
    static func size(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return "\((count + 512) / 1024) KiB" }
        let tenths = (count * 10 + (1 << 19)) >> 20
        return tenths % 10 == 0 ? "\(tenths / 10) MiB" : "\(tenths / 10).\(tenths % 10) MiB"
    }
}
