import CSystemd
import Glibc
import Synchronization

/// A connection to a D-Bus bus through sd-bus, usable from any task.
///
/// Every sd-bus call runs on ``BusLoop``'s thread; method calls are asynchronous (`sd_bus_call_async`),
/// signals arrive as an `AsyncStream`, and exported methods may answer later (the request message is
/// kept until the reply is sent). When the peer closes the connection, pending calls fail with
/// ``BusError/disconnected``, subscriptions finish, and the close handlers run.
public final class BusConnection: @unchecked Sendable {
    /// Which bus to connect to.
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        /// `$DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus`.
        case session
        /// `$DBUS_SYSTEM_BUS_ADDRESS`, or `/run/dbus/system_bus_socket`.
        case system
        /// A D-Bus address such as `unix:path=/tmp/bus`.
        case custom(String)

        public var description: String {
            switch self {
            case .session: "session bus"
            case .system: "system bus"
            case .custom(let address): "bus \(address)"
            }
        }
    }

    public let address: Address
    private let loop = BusLoop.shared
    // Loop-thread state.
    private var bus: OpaquePointer?
    private var pendingCalls: [ObjectIdentifier: CallBox] = [:]
    private var subscriptions: [ObjectIdentifier: SubscriptionBox] = [:]
    private var exported: [ExportedObject] = []
    private var closeHandlers: [@Sendable () -> Void] = []

    private init(address: Address, bus: OpaquePointer) {
        self.address = address
        self.bus = bus
    }

    /// Connects to `address`.
    public static func open(_ address: Address, description: String = "attendant") async throws(BusError) -> BusConnection {
        try await BusLoop.shared.run { () throws(BusError) -> BusConnection in
            var bus: OpaquePointer? = nil
            var result: Int32
            switch address {
            case .session:
                result = sd_bus_open_user_with_description(&bus, description)
            case .system:
                result = sd_bus_open_system_with_description(&bus, description)
            case .custom(let text):
                result = sd_bus_new(&bus)
                if result >= 0 { result = sd_bus_set_address(bus, text) }
                if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
                if result >= 0 { result = sd_bus_set_description(bus, description) }
                if result >= 0 { result = sd_bus_start(bus) }
                if result < 0 { bus = sd_bus_unref(bus) }
            }
            guard result >= 0, let bus else { throw BusError.system(errno: -result, doing: "connecting to the \(address)") }
            let connection = BusConnection(address: address, bus: bus)
            BusLoop.shared.attach(connection)
            return connection
        }
    }

    /// Runs `handler` once when the connection closes (at once if it is closed already).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        self.loop.execute {
            if self.bus == nil { handler() } else { self.closeHandlers.append(handler) }
        }
    }

    /// Closes the connection; pending calls fail with ``BusError/disconnected``.
    public func close() async {
        _ = try? await self.loop.run { () throws(BusError) in self.teardown() }
    }

    // MARK: Calls

    /// Calls a method and returns the reply's values; a D-Bus error reply throws ``BusError/reply(name:message:)``.
    public func call(
        destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [BusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(BusError) -> [BusValue] {
        let result: Result<[BusValue], BusError> = await withCheckedContinuation { continuation in
            self.loop.execute {
                do throws(BusError) {
                    try self.startCall(destination, path, interface, member, arguments, timeout) { continuation.resume(returning: $0) }
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func startCall(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        _ arguments: [BusValue],
        _ timeout: Duration,
        completion: @escaping @Sendable (Result<[BusValue], BusError>) -> Void
    ) throws(BusError) {
        guard let bus = self.bus else { throw .disconnected }
        var message: OpaquePointer? = nil
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw .system(errno: -result, doing: "calling \(interface).\(member)") }
        defer { sd_bus_message_unref(message) }
        try BusMessageCoding.append(arguments, to: message)
        let box = CallBox(connection: self, completion: completion)
        let microseconds = UInt64(timeout.components.seconds) * 1_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000_000)
        result = sd_bus_call_async(
            bus,
            nil,
            message,
            { reply, userdata, _ in
                let box = Unmanaged<CallBox>.fromOpaque(userdata!).takeUnretainedValue()
                box.connection?.finishCall(box, reply: reply)
                return 1
            },
            Unmanaged.passUnretained(box).toOpaque(),
            microseconds
        )
        guard result >= 0 else { throw .system(errno: -result, doing: "calling \(interface).\(member)") }
        self.pendingCalls[ObjectIdentifier(box)] = box
    }

    private func finishCall(_ box: CallBox, reply: OpaquePointer?) {
        guard self.pendingCalls.removeValue(forKey: ObjectIdentifier(box)) != nil else { return }
        guard let reply else { return box.completion(.failure(.disconnected)) }
        if sd_bus_message_is_method_error(reply, nil) != 0 {
            let error = sd_bus_message_get_error(reply)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error?.pointee.message.map { String(cString: $0) } ?? ""
            return box.completion(.failure(.reply(name: name, message: text)))
        }
        box.completion(Result { () throws(BusError) in try BusMessageCoding.readAll(reply) })
    }

    final class CallBox: @unchecked Sendable {
        weak var connection: BusConnection?
        let completion: @Sendable (Result<[BusValue], BusError>) -> Void
        init(connection: BusConnection, completion: @escaping @Sendable (Result<[BusValue], BusError>) -> Void) {
            self.connection = connection
            self.completion = completion
        }
    }

    // MARK: Signals

    /// Subscribes to the signals `rule` matches; the stream finishes when the connection closes.
    /// Dropping the subscription (ending the iteration) removes the match.
    public func signals(_ rule: BusMatchRule) async throws(BusError) -> AsyncStream<BusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: BusSignal.self)
        let box = try await self.loop.run { () throws(BusError) -> SubscriptionBox in
            guard let bus = self.bus else { throw .disconnected }
            let box = SubscriptionBox(continuation: continuation)
            var slot: OpaquePointer? = nil
            let result = sd_bus_add_match_async(
                bus,
                &slot,
                rule.text,
                { message, userdata, _ in
                    let box = Unmanaged<SubscriptionBox>.fromOpaque(userdata!).takeUnretainedValue()
                    if let message, let signal = try? BusSignal(message) { box.continuation.yield(signal) }
                    return 0
                },
                nil,
                Unmanaged.passUnretained(box).toOpaque()
            )
            guard result >= 0, let slot else { throw .system(errno: -result, doing: "subscribing to \(rule.text)") }
            box.slot = slot
            self.subscriptions[ObjectIdentifier(box)] = box
            return box
        }
        continuation.onTermination = { [weak self] _ in
            guard let connection = self else { return }
            connection.loop.execute {
                guard let box = connection.subscriptions.removeValue(forKey: ObjectIdentifier(box)) else { return }
                box.slot = sd_bus_slot_unref(box.slot)
            }
        }
        return stream
    }

    /// Touched on the loop thread only (the continuation is Sendable).
    final class SubscriptionBox: @unchecked Sendable {
        let continuation: AsyncStream<BusSignal>.Continuation
        var slot: OpaquePointer?
        init(continuation: AsyncStream<BusSignal>.Continuation) { self.continuation = continuation }
    }

    /// Sends a signal from `path`; errors are returned, not thrown, as nobody may be listening anyway.
    @discardableResult
    public func emit(path: String, interface: String, member: String, arguments: [BusValue]) async -> BusError? {
        do throws(BusError) {
            try await self.loop.run { () throws(BusError) in
                guard let bus = self.bus else { throw .disconnected }
                var message: OpaquePointer? = nil
                var result = sd_bus_message_new_signal(bus, &message, path, interface, member)
                guard result >= 0, let message else { throw .system(errno: -result, doing: "emitting \(member)") }
                defer { sd_bus_message_unref(message) }
                try BusMessageCoding.append(arguments, to: message)
                result = sd_bus_send(bus, message, nil)
                if result < 0 { throw .system(errno: -result, doing: "emitting \(member)") }
            }
            return nil
        } catch {
            return error
        }
    }

    // MARK: Names

    /// What `RequestName` answered.
    public enum NameRequest: Sendable, Hashable {
        case acquired
        /// Another connection owns the name; its process id when the bus tells it.
        case taken(ownerPID: UInt32?)
    }

    /// Asks for `name` without queueing: the name is ours now, or someone else has it.
    public func requestName(_ name: String) async throws(BusError) -> NameRequest {
        let reply = try await self.call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "RequestName",
            arguments: [.string(name), .uint32(4)]  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        )
        switch reply.first?.uint32 {
        case 1, 4: return .acquired
        case 3:
            return .taken(ownerPID: await self.processID(ofOwnerOf: name))
        default:
            throw .malformed("RequestName answered \(reply)")
        }
    }

    /// The process id of whoever owns `name` now, when the bus tells it.
    public func processID(ofOwnerOf name: String) async -> UInt32? {
        try? await self.call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID",
            arguments: [.string(name)]
        ).first?.uint32
    }

    /// The unique name of whoever owns `name` now, or nil.
    public func nameOwner(_ name: String) async throws(BusError) -> String? {
        do throws(BusError) {
            return try await self.call(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "GetNameOwner",
                arguments: [.string(name)]
            ).first?.string
        } catch let error where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }

    // MARK: Serving

    /// Serves `object`'s interface at its path until the connection closes. sd-bus checks argument
    /// signatures, answers `Introspect`, `Peer` and `Properties`, and the object's handlers answer the rest.
    public func export(_ object: BusObject) async throws(BusError) {
        try await self.loop.run { () throws(BusError) in
            guard let bus = self.bus else { throw .disconnected }
            let exported = ExportedObject(object, connection: self)
            var slot: OpaquePointer? = nil
            let result = sd_bus_add_object_vtable(
                bus,
                &slot,
                object.path,
                object.interface,
                exported.vtable,
                Unmanaged.passUnretained(exported).toOpaque()
            )
            guard result >= 0 else { throw .system(errno: -result, doing: "serving \(object.interface) at \(object.path)") }
            exported.slot = slot
            self.exported.append(exported)
        }
    }

    /// Answers a method call that a handler finished (on the loop thread).
    func reply(to call: OpaquePointer, with result: Result<[BusValue], BusMethodError>) {
        defer { sd_bus_message_unref(call) }
        guard let bus = self.bus else { return }
        switch result {
        case .success(let values):
            var reply: OpaquePointer? = nil
            guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else { return }
            defer { sd_bus_message_unref(reply) }
            do throws(BusError) {
                try BusMessageCoding.append(values, to: reply)
                _ = sd_bus_send(bus, reply, nil)
            } catch {
                self.replyError(call, BusMethodError(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)"))
            }
        case .failure(let error):
            self.replyError(call, error)
        }
    }

    private func replyError(_ call: OpaquePointer, _ error: BusMethodError) {
        var busError = sd_bus_error()
        sd_bus_error_set(&busError, error.name, error.message)
        _ = sd_bus_reply_method_error(call, &busError)
        sd_bus_error_free(&busError)
    }

    // MARK: Loop

    /// Lets sd-bus process everything pending, then says what to poll for; nil once closed.
    func processAndPollRequest() -> (descriptor: pollfd, timeoutMilliseconds: Int32?)? {
        guard let bus = self.bus else { return nil }
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 {
                self.teardown()
                return nil
            }
            if result == 0 { break }
        }
        let fd = sd_bus_get_fd(bus)
        let events = sd_bus_get_events(bus)
        guard fd >= 0, events >= 0 else {
            self.teardown()
            return nil
        }
        var deadline: UInt64 = 0
        var timeout: Int32? = nil
        if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            timeout = deadline <= nowMicroseconds ? 0 : Int32(clamping: (deadline - nowMicroseconds + 999) / 1000)
        }
        return (pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0), timeout)
    }

    private func teardown() {
        guard let bus = self.bus else { return }
        self.bus = nil
        self.loop.detach(self)
        let calls = self.pendingCalls.values
        self.pendingCalls.removeAll()
        for call in calls { call.completion(.failure(.disconnected)) }
        for subscription in self.subscriptions.values {
            subscription.slot = sd_bus_slot_unref(subscription.slot)
            subscription.continuation.finish()
        }
        self.subscriptions.removeAll()
        for object in self.exported { object.slot = sd_bus_slot_unref(object.slot) }
        sd_bus_flush_close_unref(bus)
        let handlers = self.closeHandlers
        self.closeHandlers.removeAll()
        for handler in handlers { handler() }
    }
}
