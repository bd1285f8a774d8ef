import CSystemd
import Glibc

/// Writes and reads message bodies as ``BusValue``s with sd-bus's non-variadic calls.
enum BusMessageCoding {
    static func append(_ values: [BusValue], to message: OpaquePointer) throws(BusError) {
        for value in values { try self.append(value, to: message) }
    }

    static func append(_ value: BusValue, to message: OpaquePointer) throws(BusError) {
        func check(_ result: Int32) throws(BusError) {
            if result < 0 { throw BusError.system(errno: -result, doing: "writing a \(value.signature) value") }
        }
        func basic<T>(_ type: Character, _ value: T) throws(BusError) {
            var copy = value
            try check(withUnsafePointer(to: &copy) { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) })
        }
        func container(_ type: Character, _ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
            try check(sd_bus_message_open_container(message, CChar(type.asciiValue!), contents))
            try body()
            try check(sd_bus_message_close_container(message))
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .unixFD(let v): try basic("h", v)  // sd-bus duplicates it
        case .string(let v), .objectPath(let v), .signature(let v):
            let type = CChar(value.signature.utf8.first!)
            // String types take the characters themselves, not a pointer to them.
            try check(v.withCString { sd_bus_message_append_basic(message, type, $0) })
        case .array(let element, let values):
            try container("a", element) { () throws(BusError) in
                for value in values { try self.append(value, to: message) }
            }
        case .dictionary(let key, let valueType, let entries):
            try container("a", "{" + key + valueType + "}") { () throws(BusError) in
                for entry in entries {
                    try container("e", key + valueType) { () throws(BusError) in
                        try self.append(entry.key, to: message)
                        try self.append(entry.value, to: message)
                    }
                }
            }
        case .structure(let members):
            try container("r", members.map(\.signature).joined()) { () throws(BusError) in
                for member in members { try self.append(member, to: message) }
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(BusError) in
                try self.append(inner, to: message)
            }
        }
    }

    /// Reads every remaining value at the current level of `message`.
    static func readAll(_ message: OpaquePointer) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try self.read(message) { values.append(value) }
        return values
    }

    /// Reads the next value, or nil at the end of the current container.
    static func read(_ message: OpaquePointer) throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>? = nil
        let peeked = sd_bus_message_peek_type(message, &type, &contentsPointer)
        if peeked < 0 { throw BusError.system(errno: -peeked, doing: "reading a message") }
        if peeked == 0 { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        func check(_ result: Int32) throws(BusError) {
            if result < 0 { throw BusError.system(errno: -result, doing: "reading a \(Character(UnicodeScalar(UInt8(type)))) value") }
        }
        func basic<T>(_ initial: T) throws(BusError) -> T {
            var value = initial
            try check(withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) })
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "h"):
            let borrowed = try basic(Int32(-1))
            let owned = fcntl(borrowed, F_DUPFD_CLOEXEC, 3)
            if owned < 0 { throw BusError.system(errno: errno, doing: "duplicating a received file descriptor") }
            return .unixFD(owned)
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try basic(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(text)
            case UInt8(ascii: "g"): return .signature(text)
            default: return .string(text)
            }
        case UInt8(ascii: "a"):
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            if contents.hasPrefix("{") {
                let inner = contents.dropFirst().dropLast()
                let keyType = String(inner.prefix(1))
                let valueType = String(inner.dropFirst())
                var entries: [BusValue.Entry] = []
                while true {
                    let entered = sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), String(inner))
                    try check(entered)
                    if entered == 0 { break }
                    guard let key = try self.read(message), let value = try self.read(message) else {
                        throw BusError.malformed("a dictionary entry without a key and a value")
                    }
                    try check(sd_bus_message_exit_container(message))
                    entries.append(.init(key, value))
                }
                return .dictionary(key: keyType, value: valueType, entries)
            }
            return .array(element: contents, try self.readAll(message))
        case UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            return .structure(try self.readAll(message))
        case UInt8(ascii: "v"):
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            guard let inner = try self.read(message) else { throw BusError.malformed("an empty variant") }
            return .variant(inner)
        default:
            // Skip what we do not model rather than fail the whole message.
            try check(sd_bus_message_skip(message, String(Character(UnicodeScalar(UInt8(bitPattern: type))))))
            return try self.read(message)
        }
    }
}
