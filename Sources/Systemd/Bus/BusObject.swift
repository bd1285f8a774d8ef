import CSystemd
import Glibc

/// An error a method handler returns to its caller as a D-Bus error reply.
public struct BusMethodError: Error, Sendable, Hashable {
    /// A D-Bus error name, such as `org.attendant.Error.NoSuchChannel`.
    public var name: String
    /// What went wrong and what to do, for the person at the other end.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// An interface served at one object path: its methods (with handlers) and the signals it emits.
public struct BusObject: Sendable {
    public struct Argument: Sendable, Hashable {
        public var name: String
        public var signature: String
        public init(_ name: String, _ signature: String) {
            self.name = name
            self.signature = signature
        }
    }

    public struct Method: Sendable {
        public var name: String
        public var inputs: [Argument]
        public var outputs: [Argument]
        /// Runs in a task of its own; returns the output values in order.
        public var handler: @Sendable ([BusValue]) async throws(BusMethodError) -> [BusValue]

        public init(
            _ name: String,
            inputs: [Argument] = [],
            outputs: [Argument] = [],
            handler: @escaping @Sendable ([BusValue]) async throws(BusMethodError) -> [BusValue]
        ) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
            self.handler = handler
        }
    }

    public struct Signal: Sendable, Hashable {
        public var name: String
        public var arguments: [Argument]
        public init(_ name: String, _ arguments: [Argument]) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var path: String
    public var interface: String
    public var methods: [Method]
    public var signals: [Signal]

    public init(path: String, interface: String, methods: [Method], signals: [Signal]) {
        self.path = path
        self.interface = interface
        self.methods = methods
        self.signals = signals
    }
}

/// A ``BusObject`` as sd-bus sees it: a vtable and the C strings it points to, alive while served.
final class ExportedObject {
    let object: BusObject
    let handlers: [String: @Sendable ([BusValue]) async throws(BusMethodError) -> [BusValue]]
    weak var connection: BusConnection?
    let vtable: UnsafeMutablePointer<sd_bus_vtable>
    private var strings: [UnsafeMutablePointer<CChar>] = []
    var slot: OpaquePointer?

    init(_ object: BusObject, connection: BusConnection) {
        self.object = object
        self.connection = connection
        self.handlers = Dictionary(object.methods.map { ($0.name, $0.handler) }) { first, _ in first }
        let count = object.methods.count + object.signals.count + 2
        self.vtable = .allocate(capacity: count)
        var index = 0
        func put(_ entry: sd_bus_vtable) {
            self.vtable[index] = entry
            index += 1
        }
        put(attendant_vtable_start(0))
        for method in object.methods {
            put(
                attendant_vtable_method(
                    self.keep(method.name),
                    self.keep(method.inputs.map(\.signature).joined()),
                    self.keep(method.outputs.map(\.signature).joined()),
                    self.keepNames(method.inputs + method.outputs),
                    ExportedObject.dispatch,
                    attendant_vtable_unprivileged()
                )
            )
        }
        for signal in object.signals {
            put(
                attendant_vtable_signal(
                    self.keep(signal.name),
                    self.keep(signal.arguments.map(\.signature).joined()),
                    self.keepNames(signal.arguments),
                    0
                )
            )
        }
        put(attendant_vtable_end())
    }

    deinit {
        self.vtable.deallocate()
        for string in self.strings { free(string) }
    }

    private func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        self.strings.append(copy)
        return UnsafePointer(copy)
    }

    /// Names joined as sd-bus wants them: each followed by a NUL, plus a final NUL.
    private func keepNames(_ arguments: [BusObject.Argument]) -> UnsafePointer<CChar> {
        var bytes: [CChar] = []
        for argument in arguments {
            bytes.append(contentsOf: argument.name.utf8.map { CChar(bitPattern: $0) })
            bytes.append(0)
        }
        bytes.append(0)
        let copy = malloc(bytes.count)!.bindMemory(to: CChar.self, capacity: bytes.count)
        copy.update(from: bytes, count: bytes.count)
        self.strings.append(copy)
        return UnsafePointer(copy)
    }

    /// The vtable's method handler: reads the arguments, keeps the message, and answers from a task.
    static let dispatch: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return -EINVAL }
        let exported = Unmanaged<ExportedObject>.fromOpaque(userdata).takeUnretainedValue()
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        guard let handler = exported.handlers[member], let connection = exported.connection else { return 0 }
        let arguments: [BusValue]
        do throws(BusError) {
            arguments = try BusMessageCoding.readAll(message)
        } catch {
            return -EBADMSG
        }
        sd_bus_message_ref(message)
        let call = UnsafeSendable(message)
        Task {
            let result: Result<[BusValue], BusMethodError>
            do throws(BusMethodError) {
                result = .success(try await handler(arguments))
            } catch {
                result = .failure(error)
            }
            BusLoop.shared.execute { connection.reply(to: call.value, with: result) }
        }
        return 1
    }
}

/// A pointer handed between the loop thread and a task; only the loop thread dereferences it.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
