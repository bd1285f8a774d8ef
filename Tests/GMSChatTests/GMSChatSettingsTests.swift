import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

/// The plugin's settings: each bad one is refused with the key and what to give instead.
@Suite struct GMSChatSettingsTests {
    func problem(_ values: [String: SettingValue]) -> String? {
        do {
            _ = try GMSChatPlugin.factory.makeChannel(settings: ChannelSettings(values), host: InMemoryChannelHost())
            return nil
        } catch let error as SettingsError {
            return "\(error.key): \(error.problem)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aMinimalChannelNeedsOnlyTheURL() {
        #expect(self.problem(["url": .string("https://gms.example.com:8443/genesys/")]) == nil)
        #expect(GMSChatPlugin.factory.defaultChatAlertTitle == "New message from Agent")
    }

    @Test func badSettingsNameTheKeyAndWhatToGive() {
        #expect(self.problem([:]) == "url: is missing; give GMS's base URL, such as \"https://gms.example.com:8443/genesys\"")
        #expect(self.problem(["url": .string("gms.example.com")]) == "url: \"gms.example.com\" is not a http or https URL")
        #expect(self.problem(["url": .string("https://g/genesys"), "api-version": .integer(3)])?.hasPrefix("api-version: must be 1") == true)
        #expect(self.problem(["url": .string("https://g/genesys"), "transport": .string("sse")])?.hasPrefix("transport: \"sse\" is neither") == true)
        #expect(
            self.problem(["url": .string("https://g/genesys"), "service": .string("a/b")])
                == "service: \"a/b\" is not a GMS service name (letters, digits, '-', '_' and '.')"
        )
        #expect(
            self.problem(["url": .string("https://g/genesys"), "first-name": .string("Ada")])
                == "last-name: is missing; GMS takes a nickname, or both first-name and last-name"
        )
        #expect(
            self.problem(["url": .string("https://g/genesys"), "cometd-url": .string("ws://g/cometd")])
                == "cometd-url: \"ws://g/cometd\" is not a http or https URL"
        )
        #expect(self.problem(["url": .string("https://g/genesys"), "network-delay": .string("100ms")]) == "network-delay: must be at least 0.5 s")
    }

    @Test func userDataIsATableOfValuesForChatAPIv2() {
        let url: [String: SettingValue] = ["url": .string("https://g/genesys")]
        #expect(
            self.problem(url.merging(["user-data": .table(["Segment": .string("gold"), "TimeZone": .integer(-480), "VIP": .bool(true)])]) { $1 })
                == nil
        )
        #expect(
            self.problem(url.merging(["user-data": .table(["Nested": .table(["a": .string("b")])])]) { $1 })?
                .hasSuffix("Nested: expected a string, a number or a boolean") == true
        )
        #expect(
            self.problem(url.merging(["api-version": .integer(1), "user-data": .table(["Segment": .string("gold")])]) { $1 })
                == "user-data: is sent with chat API v2's requestChat; with api-version = 1 it would reach nobody"
        )
        #expect(self.problem(url.merging(["user-data": .string("gold")]) { $1 })?.hasPrefix("user-data: expected a table") == true)
    }

    /// Without a chat, operations say how to start one.
    @Test func operationsWithoutAChatSayHowToStartOne() async throws {
        let channel = try GMSChatPlugin.factory.makeChannel(
            settings: ChannelSettings(["url": .string("http://127.0.0.1:9/genesys")]),
            host: InMemoryChannelHost()
        )
        await #expect(throws: ChannelError.self) { try await channel.perform(.typing(threadID: nil, started: true)) }
        do {
            _ = try await channel.perform(.endConversation(threadID: nil))
        } catch let error as ChannelError {
            #expect(error.code == .illegalState)
            #expect(error.message == "gms-chat: there is no chat; start one with `attendantctl chat connect`")
        }
        do {
            _ = try await channel.perform(.viewPage(title: "t", url: "u"))
            Issue.record("view-page is not a GMS operation")
        } catch let error as ChannelError {
            #expect(error.code == .unsupported)
        }
    }
}
