import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

// Files an agent sends, through the real daemon, plugin and simulator: `attendantctl chat save` fetches
// them through the channel (the host's network), up to max-attachment-size, and the address's signature
// is never logged.
extension CXoneChatDaemonTests {
    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test func anAgentsFileIsSavedThroughTheChannelUpToMaxAttachmentSize() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus, extra: "max-attachment-size = 4096")
        await #expect(try Self.chat(["send", "Send me the invoice"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)

        let content = String((0..<3000).map { Character(Unicode.Scalar(UInt8(65 + $0 % 26))) })
        let sent = try Self.json(
            try await simulator.control("POST", "/control/cxone/file?thread=\(thread)&name=invoice.pdf&type=application/pdf&text=Here", body: content)
        )
        let message = try #require(sent["message_id"] as? String).lowercased()
        try await eventually("the file's message in the thread") {
            try await Self.threads(bus: bus).first.map { ($0["lastMessages"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == message } }
                == true
        }
        let folder = scratch.path + "/saved"
        let saved = try await Self.chat(["save", message, "--to", folder], bus: bus)
        #expect(saved.status == 0, "\(saved.output)\n\(daemon.stderr.suffix(2000))")
        #expect(saved.output.contains("Saved \(folder)/invoice.pdf (application/pdf, 3000 bytes)."), "\(saved.output)")
        #expect(FileManager.default.contents(atPath: folder + "/invoice.pdf").map { String(decoding: $0, as: UTF8.self) } == content)
        await #expect(try simulator.controlJSON("GET", "/control/cxone/status")["file_downloads"] as? Int == 1)

        // Larger than max-attachment-size: refused, nothing saved.
        let big = try Self.json(
            try await simulator.control("POST", "/control/cxone/file?thread=\(thread)&name=big.bin", body: String(repeating: "x", count: 5000))
        )
        let bigID = try #require(big["message_id"] as? String).lowercased()
        try await eventually("the big file's message in the thread") {
            try await Self.threads(bus: bus).first.map { ($0["lastMessages"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == bigID } }
                == true
        }
        let refused = try await Self.chat(["save", bigID, "--to", folder], bus: bus)
        #expect(refused.status != 0)
        #expect(refused.output.contains("answered more than 4096 bytes (the attachment is larger than max-attachment-size)"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/big.bin"))
        #expect(!daemon.stderr.contains("signature="), "the signed address is never logged with its query")
        await Self.stop(daemon)
    }

    @Test func aFileIsUploadedAndSentAsAMessageAndOneTheChannelDoesNotTakeIsRefused() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "I have the receipt"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }

        // Uploaded to …/attachment as the SDK does, then sent as a message that carries it.
        let receipt = scratch.path + "/receipt.txt"
        try Data("Paid 42 EUR\n".utf8).write(to: URL(fileURLWithPath: receipt))
        let sent = try await Self.chat(["send", "--file", receipt], bus: bus)
        #expect(sent.status == 0, "\(sent.output)\n\(daemon.stderr.suffix(2000))")
        var carried: [String: Any] = [:]
        try await eventually("the message with the file at the gateway") {
            let messages = try await Self.gatewayThreads(simulator).first?["messages"] as? [[String: Any]] ?? []
            carried = (messages.last?["attachments"] as? [[String: Any]])?.first ?? [:]
            return !carried.isEmpty
        }
        #expect(carried["name"] as? String == "receipt.txt")
        #expect(carried["type"] as? String == "text/plain")
        let url = try #require((carried["url"] as? String).flatMap(URLComponents.init(string:)))
        let body = try await simulator.control("GET", url.path + "?" + (url.query ?? ""))
        #expect(body == "Paid 42 EUR\n", "the agent gets the file's bytes")
        let uploads = try await simulator.controlJSON("GET", "/control/cxone/status")["uploads"] as? [[String: Any]] ?? []
        #expect(uploads.count == 1 && uploads.first?["size"] as? Int == 12, "\(uploads)")

        // A type the channel does not take (the configuration's fileRestrictions) is refused before any upload.
        let program = scratch.path + "/run.exe"
        try Data([0x4D, 0x5A]).write(to: URL(fileURLWithPath: program))
        let forbidden = try await Self.chat(["send", "--file", program], bus: bus)
        #expect(forbidden.status != 0)
        #expect(
            forbidden.output.contains("run.exe is of type application/octet-stream; the channel takes image/*, application/pdf, text/plain"),
            "\(forbidden.output)"
        )
        // Larger than the channel's 10 MB.
        let large = scratch.path + "/scan.pdf"
        try Data(count: 10 * 1024 * 1024 + 1).write(to: URL(fileURLWithPath: large))
        let tooLarge = try await Self.chat(["send", "--file", large], bus: bus)
        #expect(tooLarge.status != 0)
        #expect(tooLarge.output.contains("scan.pdf has 10485761 bytes; the channel takes files of at most 10 MB"), "\(tooLarge.output)")
        let after = try await simulator.controlJSON("GET", "/control/cxone/status")["uploads"] as? [[String: Any]] ?? []
        #expect(after.count == 1, "nothing refused was uploaded: \(after)")
        await Self.stop(daemon)
    }

    /// A download that stalls (the gateway keeps the connection and never answers) ends at the channel's
    /// response-timeout: `chat save` fails saying so and writes nothing; once the storage answers again,
    /// the same file is saved.
    @Test func aDownloadThatStallsEndsAtTheResponseTimeoutAndSavesNothing() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus, extra: "response-timeout = 3")
        await #expect(try Self.chat(["send", "Send me the invoice"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)
        let sent = try Self.json(
            try await simulator.control("POST", "/control/cxone/file?thread=\(thread)&name=invoice.pdf&type=application/pdf", body: "%PDF-1.7\n")
        )
        let message = try #require(sent["message_id"] as? String).lowercased()
        try await eventually("the file's message in the thread") {
            try await Self.threads(bus: bus).first.map { ($0["lastMessages"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == message } }
                == true
        }
        _ = try await simulator.control("POST", "/control/cxone/fault?kind=stall-downloads")
        let folder = scratch.path + "/saved"
        let stalled = try await Self.chat(["save", message, "--to", folder], bus: bus)
        #expect(stalled.status != 0, "\(stalled.output)")
        #expect(stalled.output.contains("no answer within 3 s"), "\(stalled.output)\n\(daemon.stderr.suffix(2000))")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true, "nothing is left behind")
        #expect(!stalled.output.contains("signature=") && !daemon.stderr.contains("signature="), "the signed address is never shown")

        _ = try await simulator.control("POST", "/control/cxone/clear-faults")
        let saved = try await Self.chat(["save", message, "--to", folder], bus: bus)
        #expect(saved.status == 0, "\(saved.output)")
        #expect(FileManager.default.contents(atPath: folder + "/invoice.pdf") == Data("%PDF-1.7\n".utf8))
        await Self.stop(daemon)
    }

    /// A file whose name climbs out of its folder (`../../notes.txt`, as the agent's side names it) is
    /// saved inside the folder asked for, under a safe name, and shown with its name as given.
    @Test func aFileNamedOutOfItsFolderIsSavedInsideIt() async throws {
        let simulator = try await Simulator()
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await Self.listeningDaemon(simulator, scratch: scratch, bus: bus)
        await #expect(try Self.chat(["send", "The notes, please"], bus: bus).status == 0)
        try await eventually("the thread at the gateway") { try await Self.gatewayThreads(simulator).count == 1 }
        let thread = try #require(try await Self.gatewayThreads(simulator).first?["id"] as? String)
        let sent = try Self.json(
            try await simulator.control("POST", "/control/cxone/file?thread=\(thread)&name=..%2F..%2Fnotes.txt&type=text/plain", body: "Notes\n")
        )
        let message = try #require(sent["message_id"] as? String).lowercased()
        var shown: [String: Any] = [:]
        try await eventually("the file's message in the thread") {
            let messages = try await Self.threads(bus: bus).first?["lastMessages"] as? [[String: Any]] ?? []
            shown = messages.first { $0["id"] as? String == message } ?? [:]
            return !shown.isEmpty
        }
        #expect((shown["attachments"] as? [[String: Any]])?.first?["name"] as? String == "../../notes.txt", "\(shown)")
        let folder = scratch.path + "/saved"
        let saved = try await Self.chat(["save", message, "--to", folder], bus: bus)
        #expect(saved.status == 0, "\(saved.output)\n\(daemon.stderr.suffix(2000))")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1 && !files[0].contains("/") && !files[0].hasPrefix("."), "\(files)")
        #expect(FileManager.default.contents(atPath: folder + "/" + (files.first ?? "")) == Data("Notes\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/notes.txt"), "nothing outside the folder")
        await Self.stop(daemon)
    }
}
