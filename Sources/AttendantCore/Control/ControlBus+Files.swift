import AttendantControl
import AttendantPluginAPI
import Glibc
import Systemd

// The chat methods of issue 33: answering a message with a choice, read receipts, older messages, and
// files. Files travel as descriptors the caller opened: the daemon (sandboxed, with its own umask) never
// opens a path of the person's, and no file crosses the bus as bytes.

extension ControlBus {
    static func answerMethods(target: Target) -> [BusObject.Method] {
        typealias A = BusObject.Argument
        let m = ControlInterface.Method.self
        // Each names the channel, then the thread ("": the channel's current one).
        func method(
            _ name: String,
            _ inputs: [A],
            _ outputs: [A] = [],
            _ handle: @escaping @Sendable ([BusValue]) async throws(BusMethodError) -> [BusValue]
        ) -> BusObject.Method {
            Self.method(name, [A("thread", "s")] + inputs, outputs, handle)
        }
        return [
            method(m.chatChoose, [A("message", "s"), A("choice", "s")]) { arguments throws(BusMethodError) in
                let request = ChannelRequest.choose(
                    threadID: Self.thread(arguments),
                    messageID: Self.string(arguments, 2),
                    choiceID: Self.string(arguments, 3)
                )
                _ = try await Self.chat(arguments, target: target, request)
                target.alerts?.answered(channel: Self.string(arguments, 0), messageID: Self.string(arguments, 2))
                return []
            },
            method(m.chatMarkRead, [A("message", "s")]) { arguments throws(BusMethodError) in
                let message = Self.string(arguments, 2)
                _ = try await Self.chat(
                    arguments,
                    target: target,
                    .markRead(threadID: Self.thread(arguments), messageID: message.isEmpty ? nil : message)
                )
                return []
            },
            method(m.chatSendTranscript, [A("email", "s")]) { arguments throws(BusMethodError) in
                _ = try await Self.chat(
                    arguments,
                    target: target,
                    .sendTranscript(threadID: Self.thread(arguments), email: Self.string(arguments, 2))
                )
                return []
            },
            method(m.chatLoadOlder, [], [A("thread", "a{sv}")]) { arguments throws(BusMethodError) in
                try await Self.thread(arguments, target: target, .loadOlderMessages(threadID: Self.thread(arguments)))
            },
            method(m.chatSaveAttachment, [A("message", "s"), A("attachment", "s"), A("file", "h")], [A("saved", "a{sv}")]) {
                arguments throws(BusMethodError) in
                let descriptor = try Self.file(arguments, 4)
                defer { close(descriptor) }
                let request = ChannelRequest.downloadAttachment(
                    threadID: Self.thread(arguments),
                    messageID: Self.string(arguments, 2),
                    attachmentID: Self.string(arguments, 3)
                )
                let reply = try await Self.chat(arguments, target: target, request)
                guard case .file(let file) = reply else { throw Self.unexpected(reply, arguments, request) }
                guard file.bytes.count <= ControlInterface.Method.largestFile else {
                    throw BusMethodError(
                        name: ControlError.invalidArgument,
                        message: "the attachment is larger than \(ControlInterface.Method.largestFile >> 20) MiB; not saved"
                    )
                }
                try Self.write(file.bytes, to: descriptor)
                return [.vardict(["Name": .string(file.name), "MimeType": .string(file.mimeType), "Size": .int64(Int64(file.bytes.count))])]
            },
            method(m.chatSendFile, [A("name", "s"), A("mimeType", "s"), A("file", "h")], [A("delivery", "a{ss}")]) {
                arguments throws(BusMethodError) in
                let descriptor = try Self.file(arguments, 4)
                defer { close(descriptor) }
                let bytes = try Self.read(descriptor)
                let name = Self.string(arguments, 2)
                let file = ChatFile(name: name, mimeType: Self.string(arguments, 3), bytes: bytes)
                let reply = try await Self.chat(arguments, target: target, .sendFile(threadID: Self.thread(arguments), file: file))
                var fields = ["delivery": "sent"]
                if case .fields(let more) = reply { fields.merge(more) { $1 } }
                return [
                    .dictionary(key: "s", value: "s", fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) })
                ]
            },
        ]
    }

    /// The thread argument: nil for "" (the channel's current thread).
    private static func thread(_ arguments: [BusValue]) -> String? {
        let thread = self.string(arguments, 1)
        return thread.isEmpty ? nil : thread
    }

    /// The descriptor argument at `index`, which must be a regular file (a pipe or a socket could hold the
    /// daemon's method forever).
    private static func file(_ arguments: [BusValue], _ index: Int) throws(BusMethodError) -> Int32 {
        guard index < arguments.count, case .unixFD(let descriptor) = arguments[index] else {
            throw BusMethodError(name: ControlError.invalidArgument, message: "expected a file descriptor")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw BusMethodError(name: ControlError.invalidArgument, message: "the file given is not a regular file")
        }
        return descriptor
    }

    /// The whole file, from its start, up to ``ControlInterface/Method/largestFile``.
    private static func read(_ descriptor: Int32) throws(BusMethodError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BusMethodError(name: ControlError.invalidArgument, message: "cannot read the file: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            offset += off_t(count)
            guard bytes.count <= ControlInterface.Method.largestFile else {
                throw BusMethodError(
                    name: ControlError.invalidArgument,
                    message: "the file is larger than \(ControlInterface.Method.largestFile >> 20) MiB; not sent"
                )
            }
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) throws(BusMethodError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, bytes.count - offset, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BusMethodError(name: ControlError.channelFailed, message: "cannot write the file: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }
}
