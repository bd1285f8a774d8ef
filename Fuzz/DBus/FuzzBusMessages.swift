// libFuzzer target for what attendantd decodes from D-Bus (DESIGN.md section 7): method calls to its control
// interface (Accept's strings, ChatCreateThread's a{ss}, ListContacts' u, SetDoNotDisturb's b, the chat
// methods' file descriptors), and the signals it listens to (logind's PrepareForSleep, the notification
// server's ActionInvoked and NotificationClosed, PropertiesChanged's a{sv}, NameOwnerChanged).
//
// sd-bus reads the wire format; the daemon's own layer is the Systemd module's: BusMessageCoding reads a
// message's body into BusValues (every method handler and every signal stream starts there), and the
// daemon's handlers take their arguments with BusValue's accessors. So the input is what a peer writes
// after authenticating: one byte, the number of descriptors passed alongside (0-3: sd-bus takes a message
// only with as many as its header names), then the bytes of one or more D-Bus messages. A
// libsystemd server connection on a socket pair reads them (as the daemon's connection reads the bus's),
// and each message that sd-bus accepts is
//   - read as BusSignal reads a signal and ExportedObject a method call's arguments (BusMessageCoding);
//   - taken apart with every accessor the daemon's handlers use (string, bool, int64, uint32, double,
//     elements, stringDictionary, description);
//   - written back with BusMessageCoding.append into a new message, which must read back to the same values.
// Errors are expected; a crash, a leak or a failed precondition is a defect. Compiled with the Systemd
// module's Bus sources by scripts/fuzz dbus.
import CSystemd
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBusMessages(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    var pair: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0, "socketpair: errno \(errno)")
    let (server, peer) = (pair[0], pair[1])
    defer { close(peer) }
    _ = fcntl(peer, F_SETFL, fcntl(peer, F_GETFL) | O_NONBLOCK)

    var bus: OpaquePointer? = nil
    precondition(sd_bus_new(&bus) >= 0, "sd_bus_new")
    defer { sd_bus_close_unref(bus) }
    var id = sd_id128_t()
    _ = sd_id128_randomize(&id)
    precondition(sd_bus_set_fd(bus, server, server) >= 0, "sd_bus_set_fd")
    precondition(sd_bus_set_server(bus, 1, id) >= 0, "sd_bus_set_server")
    precondition(sd_bus_negotiate_fds(bus, 1) >= 0, "sd_bus_negotiate_fds")
    precondition(sd_bus_add_filter(bus, nil, received, nil) >= 0, "sd_bus_add_filter")
    precondition(sd_bus_start(bus) >= 0, "sd_bus_start")

    // SASL EXTERNAL as the uid we are (the socket pair's credentials), then unix fds, then the messages.
    let uid = Array(String(getuid()).utf8).map { String($0, radix: 16) }.joined()
    send(Array("\0AUTH EXTERNAL \(uid)\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n".utf8), to: peer, descriptors: [])
    for _ in 0..<16 where sd_bus_is_ready(bus) <= 0 {
        guard sd_bus_process(bus, nil) >= 0 else { return 0 }
        drain(peer)
    }
    guard sd_bus_is_ready(bus) > 0 else { preconditionFailure("sd-bus did not accept the authentication") }

    let descriptors = (0..<Int(bytes.first ?? 0) % 4).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
    send(Array(bytes.dropFirst()), to: peer, descriptors: descriptors)
    for descriptor in descriptors { close(descriptor) }
    // Until sd-bus has nothing more to do (it waits for the rest of a message the input cut short) or
    // drops the connection (a malformed message).
    for _ in 0..<1024 {
        let result = sd_bus_process(bus, nil)
        drain(peer)
        for message in receivedMessages {
            decode(message)
            sd_bus_message_unref(message)
        }
        receivedMessages.removeAll()
        if result <= 0 { break }
    }
    return 0
}

/// The messages sd-bus received, kept by its filter and read once sd_bus_process returns (so that a leak
/// of the reading is not taken for one of libsystemd's, which lsan.supp ignores).
nonisolated(unsafe) private var receivedMessages: [OpaquePointer] = []

/// sd-bus's filter: every message the connection receives.
private let received: sd_bus_message_handler_t = { message, _, _ in
    if let message { receivedMessages.append(sd_bus_message_ref(message)) }
    return 0
}

/// Reads one received message as the daemon does.
private func decode(_ message: OpaquePointer) {
    let signal: BusSignal
    do throws(BusError) {
        signal = try BusSignal(message)
    } catch {
        _ = error.description
        return
    }
    for argument in signal.arguments { takeApart(argument) }
    writeBack(signal.arguments)
    for case .unixFD(let descriptor) in signal.arguments.flatMap(allValues) { close(descriptor) }
}

/// What the daemon's handlers and signal streams ask of an argument, at every depth.
private func takeApart(_ value: BusValue) {
    _ = (value.string, value.bool, value.int64, value.uint32, value.double, value.description, value.signature)
    if let dictionary = value.stringDictionary {
        for (_, entry) in dictionary { _ = (entry.string, entry.bool, entry.uint32, entry.elements?.compactMap(\.string)) }
    }
    for element in value.elements ?? [] { takeApart(element) }
    switch value {
    case .dictionary(_, _, let entries):
        for entry in entries {
            takeApart(entry.key)
            takeApart(entry.value)
        }
    case .variant(let inner): takeApart(inner)
    default: break
    }
}

/// `values` written by BusMessageCoding.append into a new message must read back to themselves.
private func writeBack(_ values: [BusValue]) {
    var bus: OpaquePointer? = nil
    var pair: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    defer { close(pair[1]) }
    precondition(sd_bus_new(&bus) >= 0 && sd_bus_set_fd(bus, pair[0], pair[0]) >= 0 && sd_bus_negotiate_fds(bus, 1) >= 0)
    defer { sd_bus_close_unref(bus) }
    precondition(sd_bus_start(bus) >= 0, "sd_bus_start")
    var message: OpaquePointer? = nil
    precondition(sd_bus_message_new_signal(bus, &message, "/org/attendant/Fuzz", "org.attendant.Fuzz", "Back") >= 0)
    defer { sd_bus_message_unref(message) }
    do throws(BusError) {
        try BusMessageCoding.append(values, to: message!)
    } catch {
        preconditionFailure("values read from a message cannot be written again: \(error)\n\(values)")
    }
    precondition(sd_bus_message_seal(message, 1, 0) >= 0, "sd_bus_message_seal")
    precondition(sd_bus_message_rewind(message, 1) >= 0, "sd_bus_message_rewind")
    let back: [BusValue]
    do throws(BusError) {
        back = try BusMessageCoding.readAll(message!)
    } catch {
        preconditionFailure("values written cannot be read again: \(error)\n\(values)")
    }
    defer { for case .unixFD(let descriptor) in back.flatMap(allValues) { close(descriptor) } }
    precondition(back.count == values.count && zip(back, values).allSatisfy(same), "written \(values), read back \(back)")
}

/// The same values: a NaN equal to itself, any two descriptors alike (each read is a new duplicate).
private func same(_ a: BusValue, _ b: BusValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): x == y || (x.isNaN && y.isNaN)
    case (.unixFD, .unixFD): true
    case (.array(let e, let x), .array(let f, let y)): e == f && x.count == y.count && zip(x, y).allSatisfy(same)
    case (.structure(let x), .structure(let y)): x.count == y.count && zip(x, y).allSatisfy(same)
    case (.variant(let x), .variant(let y)): same(x, y)
    case (.dictionary(let k, let v, let x), .dictionary(let l, let w, let y)):
        k == l && v == w && x.count == y.count && zip(x, y).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
    default: a == b
    }
}

/// `value` and every value inside it.
private func allValues(_ value: BusValue) -> [BusValue] {
    switch value {
    case .array(_, let items), .structure(let items): [value] + items.flatMap(allValues)
    case .dictionary(_, _, let entries): [value] + entries.flatMap { allValues($0.key) + allValues($0.value) }
    case .variant(let inner): [value] + allValues(inner)
    default: [value]
    }
}

/// Writes `bytes` with `descriptors` passed alongside (SCM_RIGHTS), as much as the socket takes.
private func send(_ bytes: [UInt8], to socket: Int32, descriptors: [Int32]) {
    var bytes = bytes
    let control = descriptors.isEmpty ? 0 : controlSpace(descriptors.count * MemoryLayout<Int32>.size)
    var buffer = [UInt8](repeating: 0, count: max(control, 1))
    bytes.withUnsafeMutableBytes { body in
        buffer.withUnsafeMutableBytes { controlBytes in
            var vector = iovec(iov_base: body.baseAddress, iov_len: body.count)
            withUnsafeMutablePointer(to: &vector) { vectorPointer in
                var header = msghdr()
                header.msg_iov = vectorPointer
                header.msg_iovlen = 1
                if control > 0 {
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = control
                    let cmsg = controlBytes.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                    cmsg.pointee.cmsg_level = SOL_SOCKET
                    cmsg.pointee.cmsg_type = Int32(SCM_RIGHTS)
                    cmsg.pointee.cmsg_len = MemoryLayout<cmsghdr>.size + descriptors.count * MemoryLayout<Int32>.size
                    let data = (controlBytes.baseAddress! + MemoryLayout<cmsghdr>.size).assumingMemoryBound(to: Int32.self)
                    for (index, descriptor) in descriptors.enumerated() { data[index] = descriptor }
                }
                _ = sendmsg(socket, &header, Int32(MSG_NOSIGNAL))
            }
        }
    }
}

/// CMSG_SPACE (a macro Swift cannot import): the header and `length` bytes, padded to the size of a size_t.
private func controlSpace(_ length: Int) -> Int {
    let alignment = MemoryLayout<Int>.size
    return MemoryLayout<cmsghdr>.size + (length + alignment - 1) / alignment * alignment
}

/// Reads and drops what sd-bus wrote to the peer (its SASL answers, error replies).
private func drain(_ socket: Int32) {
    var sink = [UInt8](repeating: 0, count: 4096)
    while sink.withUnsafeMutableBytes({ read(socket, $0.baseAddress, $0.count) }) > 0 {}
}
