import AttendantControl
import AttendantPluginAPI
import Systemd

// The chat methods: each hands its ChannelRequest to the named channel's supervisor and answers with the
// reply in the method's D-Bus shape.

extension ControlBus {
    static func chatMethods(target: Target) -> [BusObject.Method] {
        typealias A = BusObject.Argument
        let m = ControlInterface.Method.self
        return [
            method(m.chatPrepare, []) { arguments throws(BusMethodError) in
                _ = try await Self.chat(arguments, target: target, .prepare)
                return []
            },
            method(m.chatConnect, []) { arguments throws(BusMethodError) in
                _ = try await Self.chat(arguments, target: target, .connect)
                return []
            },
            method(m.chatViewPage, [A("title", "s"), A("url", "s")]) { arguments throws(BusMethodError) in
                _ = try await Self.chat(arguments, target: target, .viewPage(title: Self.string(arguments, 1), url: Self.string(arguments, 2)))
                return []
            },
            method(m.chatListThreads, [], [A("threads", "aa{sv}")]) { arguments throws(BusMethodError) in
                let reply = try await Self.chat(arguments, target: target, .listThreads)
                guard case .threads(let threads) = reply else { throw Self.unexpected(reply, arguments, .listThreads) }
                return [.array(element: "a{sv}", threads.map { ChatThreadRecord($0).busValue })]
            },
            method(m.chatOpenThread, [A("thread", "s")], [A("thread", "a{sv}")]) { arguments throws(BusMethodError) in
                try await Self.thread(arguments, target: target, .openThread(threadID: Self.string(arguments, 1)))
            },
            method(m.chatCreateThread, [A("fields", "a{ss}")], [A("thread", "a{sv}")]) { arguments throws(BusMethodError) in
                let fields = (arguments.dropFirst().first?.stringDictionary ?? [:]).compactMapValues(\.string)
                return try await Self.thread(arguments, target: target, .createThread(customFields: fields))
            },
            method(m.chatSendMessage, [A("thread", "s"), A("text", "s")], [A("delivery", "a{ss}")]) { arguments throws(BusMethodError) in
                let thread = Self.string(arguments, 1)
                let reply = try await Self.chat(
                    arguments,
                    target: target,
                    .sendMessage(threadID: thread.isEmpty ? nil : thread, text: Self.string(arguments, 2))
                )
                // A plugin that tells nothing more (answers done) has sent the message.
                var fields = ["delivery": "sent"]
                if case .fields(let more) = reply { fields.merge(more) { $1 } }
                let entries = fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
                return [.dictionary(key: "s", value: "s", entries)]
            },
            method(m.chatEndConversation, [A("thread", "s")]) { arguments throws(BusMethodError) in
                let thread = Self.string(arguments, 1)
                _ = try await Self.chat(arguments, target: target, .endConversation(threadID: thread.isEmpty ? nil : thread))
                return []
            },
            method(m.channelRequest, [A("command", "s"), A("arguments", "a{ss}")], [A("fields", "a{ss}")]) { arguments throws(BusMethodError) in
                let command = Self.string(arguments, 1)
                let values = (arguments.dropFirst(2).first?.stringDictionary ?? [:]).compactMapValues(\.string)
                let request = Self.request(command, values)
                let reply = try await Self.chat(arguments, target: target, request)
                if case .typing(let thread, let started) = request, case .done = reply {
                    let fields = ["typing": started ? "started" : "stopped"].merging(thread.map { ["thread": $0] } ?? [:]) { $1 }
                    return [
                        .dictionary(
                            key: "s",
                            value: "s",
                            fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
                        )
                    ]
                }
                // A typed request a plugin answers with done has nothing more to say.
                if case .done = reply, !Self.isCustom(request) { return [.dictionary(key: "s", value: "s", [])] }
                // A request that raised a contact (Loopback's `ring`) answers with the contact's id and kind.
                if case .contact(let contact) = reply {
                    return [
                        .dictionary(
                            key: "s",
                            value: "s",
                            [.init(.string("contact"), .string(contact.id)), .init(.string("kind"), .string(contact.kind.rawValue))]
                        )
                    ]
                }
                guard case .fields(let fields) = reply else { throw Self.unexpected(reply, arguments, request) }
                let entries = fields.sorted { $0.key < $1.key }.map { BusValue.Entry(.string($0.key), .string($0.value)) }
                return [.dictionary(key: "s", value: "s", entries)]
            },
        ]
    }

    /// A chat method: its first argument names the channel, `inputs` follow.
    static func method(
        _ name: String,
        _ inputs: [BusObject.Argument],
        _ outputs: [BusObject.Argument] = [],
        _ handle: @escaping @Sendable ([BusValue]) async throws(BusMethodError) -> [BusValue]
    ) -> BusObject.Method {
        BusObject.Method(name, inputs: [BusObject.Argument("channel", "s")] + inputs, outputs: outputs, handler: handle)
    }

    /// A plugin's request by name. `chat-typing` (`state` started or stopped, `thread`) is the API's
    /// typed ``ChannelRequest/typing(threadID:started:)`` since 1.5; any other state is the channel's to refuse.
    /// `actions-dismiss` (`action`: one, else all), `actions-suppress` and `actions-unsuppress` are the typed
    /// in-app action requests.
    private static func request(_ command: String, _ values: [String: String]) -> ChannelRequest {
        switch command {
        case "actions-dismiss": return .dismiss(actionID: values["action"].flatMap { $0.isEmpty ? nil : $0 })
        case "actions-suppress": return .suppress
        case "actions-unsuppress": return .unsuppress
        default: break
        }
        let state = values["state"] ?? "started"
        guard command == "chat-typing", state == "started" || state == "stopped" else { return .custom(command: command, arguments: values) }
        return .typing(threadID: values["thread"], started: state == "started")
    }

    private static func isCustom(_ request: ChannelRequest) -> Bool {
        if case .custom = request { true } else { false }
    }

    static func string(_ arguments: [BusValue], _ index: Int) -> String {
        index < arguments.count ? arguments[index].string ?? "" : ""
    }

    /// Carries out `request` on the channel the first argument names; the channel's errors become the
    /// API's error names with the channel's message.
    static func chat(_ arguments: [BusValue], target: Target, _ request: ChannelRequest) async throws(BusMethodError) -> ChannelReply {
        let channel = self.string(arguments, 0)
        let supervisor = try self.supervisor(channel, target: target)
        do {
            return try await supervisor.perform(request)
        } catch let error as ChannelError {
            let name =
                switch error.code {
                case .unsupported: ControlError.unsupported
                case .illegalState: ControlError.illegalState
                case .server: ControlError.serverError
                case .invalidArgument: ControlError.invalidArgument
                default: ControlError.channelFailed
                }
            throw BusMethodError(name: name, message: "channel \(channel): \(error.message)")
        } catch {
            throw BusMethodError(name: ControlError.channelFailed, message: "channel \(channel): \(error)")
        }
    }

    static func thread(_ arguments: [BusValue], target: Target, _ request: ChannelRequest) async throws(BusMethodError) -> [BusValue] {
        let reply = try await self.chat(arguments, target: target, request)
        guard case .thread(let thread) = reply else { throw self.unexpected(reply, arguments, request) }
        return [ChatThreadRecord(thread).busValue]
    }

    /// A channel that answered with another kind of reply than the request calls for.
    static func unexpected(_ reply: ChannelReply, _ arguments: [BusValue], _ request: ChannelRequest) -> BusMethodError {
        BusMethodError(
            name: ControlError.channelFailed,
            message:
                "channel \(self.string(arguments, 0)) answered \(request.name) with \(reply) instead of \(Self.expected(request)); the plugin is at fault"
        )
    }
}

extension ControlBus {
    /// The reply `request` calls for, for messages.
    static func expected(_ request: ChannelRequest) -> String {
        switch request {
        case .listThreads: "threads"
        case .downloadAttachment: "a file"
        case .typing, .custom: "fields"
        default: "a thread"
        }
    }
}

extension ChatThreadRecord {
    init(_ thread: ChatThread) {
        self.init(
            id: thread.id,
            name: thread.name,
            state: thread.state.rawValue,
            lastMessages: thread.lastMessages.map { message in
                ChatMessageRecord(message)
            },
            assignedAgent: thread.assignedAgent.map { $0.displayName.isEmpty ? $0.address : $0.displayName },
            positionInQueue: thread.positionInQueue.map(Int64.init)
        )
    }
}

extension ChatMessageRecord {
    init(_ message: ChatMessage) {
        self.init(
            id: message.id,
            threadID: message.threadID,
            kind: message.kind.rawValue,
            direction: message.direction.rawValue,
            sender: message.sender.displayName,
            senderAddress: message.sender.address,
            text: message.text,
            sentAt: message.sentAt.seconds,
            readByAgentAt: message.readByAgentAt?.seconds
        )
        if !message.choices.isEmpty { self.choices = message.choices.map { ChatChoiceRecord(id: $0.id, label: $0.label, url: $0.url) } }
        if !message.attachments.isEmpty {
            self.attachments = message.attachments.map {
                ChatAttachmentRecord(id: $0.id, name: $0.name, mimeType: $0.mimeType, size: $0.size.map(Int64.init))
            }
        }
    }
}
