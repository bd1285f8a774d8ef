import ArgumentParser
import AttendantControl

// Chat operations some protocols have and others not (Genesys GMS chat API v2: updateNickname, pushUrl,
// customNotice); a channel without them answers Unsupported, which is printed with its message.
extension Attendantctl.Chat {
    struct Nickname: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the name the agent sees for the person.",
            discussion: """
                GMS chat API v2: updateNickname. JSON: an object with the keys ok (true), action \
                ("chat-nickname"), channel, nickname.
                """
        )

        @Argument(help: ArgumentHelp("The new name.", valueName: "name"))
        var nickname: String

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.nickname.isEmpty { throw ValidationError("the nickname must not be empty") }
        }

        func run() async throws {
            try await self.chat.send("chat-nickname", ["nickname": self.nickname], json: self.output.json) { channel in
                "The agent on \(channel) now sees \(self.nickname)."
            }
        }
    }

    struct PushURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push-url",
            abstract: "Show the agent a web page.",
            discussion: """
                GMS chat API v2: pushUrl. JSON: an object with the keys ok (true), action \
                ("chat-push-url"), channel, url.
                """
        )

        @Argument(help: ArgumentHelp("An http or https URL.", valueName: "url"))
        var url: String

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            let lower = self.url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), self.url.count > 8 else {
                throw ValidationError("\"\(self.url)\" is not an http or https URL")
            }
        }

        func run() async throws {
            try await self.chat.send("chat-push-url", ["url": self.url], json: self.output.json) { channel in
                "Pushed \(self.url) to the agent on \(channel)."
            }
        }
    }

    struct Notice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the agent a custom notice (needs an agent desktop that shows them).",
            discussion: """
                GMS chat API v2: customNotice. JSON: an object with the keys ok (true), action \
                ("chat-notice"), channel, text.
                """
        )

        @Argument(help: ArgumentHelp("The notice.", valueName: "text"))
        var text: String

        @OptionGroup var chat: ChatOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if self.text.isEmpty { throw ValidationError("the notice must not be empty") }
        }

        func run() async throws {
            try await self.chat.send("chat-notice", ["text": self.text], json: self.output.json) { channel in
                "Sent the notice to the agent on \(channel)."
            }
        }
    }
}

extension ChatOptions {
    /// Sends a plugin's chat request and prints what was done: `done` for people, or the JSON object
    /// `{ok, action, channel, <arguments>}`.
    func send(_ command: String, _ arguments: [String: String], json: Bool, done: @escaping (String) -> String) async throws {
        try await self.run(json: json) { client, channel throws(ControlClientError) in
            _ = try await client.channelRequest(channel: channel, command: command, arguments: arguments)
            if json {
                let fields: [(String, JSON)] =
                    [("ok", .bool(true)), ("action", .string(command)), ("channel", .string(channel))]
                    + arguments.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) }
                Terminal.out(JSON.object(fields).text)
            } else {
                Terminal.out(done(channel))
            }
        }
    }
}
