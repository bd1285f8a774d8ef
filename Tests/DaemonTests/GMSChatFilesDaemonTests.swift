import DaemonTestSupport
import Foundation
import TestSupport
import Testing

/// A GMS v2 chat read back and its files, through the real `attendantd` with the GMSChat plugin against
/// the real `attendant-sim` GMS server: `chat threads` and `chat open` show the agent's messages,
/// `chat save` stores the agent's file (under a safe name; one too large is refused), `chat send --file`
/// uploads one through GMS's file management, and a type GMS does not take is refused naming what it takes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GMSChatFilesDaemonTests {
    typealias Simulator = SimulatorDaemonTests.Simulator

    static func chat(_ arguments: [String], bus: PrivateBus) async throws -> (status: Int32, output: String) {
        try await CXoneChatDaemonTests.chat(arguments, bus: bus)
    }

    static func json(_ output: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
    }

    static func messages(_ thread: [String: Any]) -> [[String: Any]] {
        thread["lastMessages"] as? [[String: Any]] ?? []
    }

    /// Waits for `find` to find something, and returns it.
    static func found<T>(_ what: String, _ find: () async throws -> T?) async throws -> T {
        var value: T?
        try await eventually(what) {
            value = try await find()
            return value != nil
        }
        return try #require(value)
    }

    @Test func theChatReadsBackAndItsFilesAreSavedAndSent() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await TokenDaemonTests.daemon(GMSChatDaemonTests.configuration(simulator), scratch: scratch, bus: bus)
        try await CXoneChatDaemonTests.waitForListening(bus, daemon)

        // The thread lists with the agent's greeting (before: lastMessages [] and chat open unsupported).
        let greeting = "Hello, this is Ada. How can I help you?"
        try await eventually("the greeting in chat threads") {
            try await CXoneChatDaemonTests.threads(bus: bus).contains { CXoneChatDaemonTests.texts($0).contains(greeting) }
        }
        let threadID = try #require(try await CXoneChatDaemonTests.threads(bus: bus).first?["id"] as? String)
        _ = try await simulator.control("POST", "/control/gms/agent?text=Here%20is%20your%20invoice.")
        _ = try await simulator.control("POST", "/control/gms/file?name=..%2Finvoice.txt&type=text%2Fplain", body: "Invoice 42\n")
        try await eventually("the agent's file in chat open") {
            let (status, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
            return status == 0 && Self.messages(Self.json(output)).contains { !($0["attachments"] as? [Any] ?? []).isEmpty }
        }
        let (status, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
        #expect(status == 0, "\(output)\n\(daemon.stderr.suffix(2000))")
        let shown = Self.messages(Self.json(output))
        #expect(
            shown.compactMap { $0["text"] as? String }.filter { [greeting, "Here is your invoice."].contains($0) } == [
                greeting, "Here is your invoice.",
            ]
        )
        let fileMessage = try #require(shown.last { !($0["attachments"] as? [Any] ?? []).isEmpty })
        let attachment = try #require((fileMessage["attachments"] as? [[String: Any]])?.first)
        #expect(attachment["name"] as? String == "../invoice.txt" && attachment["size"] as? Int == 11, "\(attachment)")

        // chat save: into the folder asked for, under a safe name, with the file's bytes.
        let folder = scratch.path + "/downloads"
        let messageID = try #require(fileMessage["id"] as? String)
        let saved = try await Self.chat(["save", messageID, "--to", folder], bus: bus)
        #expect(saved.status == 0, "\(saved)\n\(daemon.stderr.suffix(2000))")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1 && !files[0].contains("/"), "\(files)")
        #expect(FileManager.default.contents(atPath: folder + "/" + (files.first ?? "")) == Data("Invoice 42\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/invoice.txt"))

        // A file larger than attendant downloads is refused, and nothing is written.
        _ = try await simulator.control("POST", "/control/gms/file?name=huge.txt&type=text%2Fplain&size=\(65 << 20)")
        let huge = try await Self.found("the huge file in chat open") { () -> [String: Any]? in
            let (_, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
            return Self.messages(Self.json(output)).last { ($0["attachments"] as? [[String: Any]])?.first?["name"] as? String == "huge.txt" }
        }
        let refused = try await Self.chat(["save", try #require(huge["id"] as? String), "--to", folder], bus: bus)
        #expect(refused.status != 0 && refused.output.contains("more than the 67108864 bytes (64 MiB) attendant downloads"), "\(refused)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)

        // chat send --file: uploaded through GMS's fileUpload, a FileUploaded row of the customer's.
        let hello = try scratch.write("hello.txt", "hello")
        let sent = try await Self.chat(["send", "--file", hello], bus: bus)
        #expect(sent.status == 0, "\(sent)\n\(daemon.stderr.suffix(2000))")
        let uploaded = try await Self.found("the upload at GMS") { () -> [String: Any]? in
            let rows = try await GMSChatDaemonTests.gmsChats(simulator).last?["transcript"] as? [[String: Any]] ?? []
            return rows.last { $0["type"] as? String == "FileUploaded" && $0["party"] as? String == "client" }?["file"] as? [String: Any]
        }
        #expect(uploaded["name"] as? String == "hello.txt" && uploaded["text"] as? String == "hello", "\(uploaded)")

        // A type GMS does not take: refused before the upload, naming what it takes.
        let program = try scratch.write("run.exe", "MZ")
        let forbidden = try await Self.chat(["send", "--file", program], bus: bus)
        #expect(forbidden.status != 0, "\(forbidden)")
        #expect(forbidden.output.contains("run.exe is of type exe; it takes jpeg, jpg, pdf, png, txt, zip files up to 1048576 bytes"), "\(forbidden)")
        let rows = try await GMSChatDaemonTests.gmsChats(simulator).last?["transcript"] as? [[String: Any]] ?? []
        #expect(rows.filter { $0["type"] as? String == "FileUploaded" && $0["party"] as? String == "client" }.count == 1)
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// A fileDownload that stalls (GMS keeps the connection and never answers) ends at three times the
    /// channel's network-delay, a file operation's limit: `chat save` fails saying so and writes nothing;
    /// once GMS answers again, it is saved.
    @Test func aDownloadThatStallsEndsAtItsTimeLimitAndSavesNothing() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let configuration = GMSChatDaemonTests.configuration(simulator) + "\nnetwork-delay = 3\n"
        let daemon = try await TokenDaemonTests.daemon(configuration, scratch: scratch, bus: bus)
        try await CXoneChatDaemonTests.waitForListening(bus, daemon)
        try await eventually("the chat in chat threads") { try await CXoneChatDaemonTests.threads(bus: bus).first?["id"] != nil }
        let threadID = try #require(try await CXoneChatDaemonTests.threads(bus: bus).first?["id"] as? String)
        _ = try await simulator.control("POST", "/control/gms/file?name=notes.txt&type=text%2Fplain", body: "Notes\n")
        let file = try await Self.found("the agent's file in chat open") { () -> [String: Any]? in
            let (_, output) = try await Self.chat(["open", threadID, "--json"], bus: bus)
            return Self.messages(Self.json(output)).last { ($0["attachments"] as? [[String: Any]])?.first?["name"] as? String == "notes.txt" }
        }
        let messageID = try #require(file["id"] as? String)
        _ = try await simulator.control("POST", "/control/gms/fault?kind=stall-downloads")
        let folder = scratch.path + "/downloads"
        let stalled = try await Self.chat(["save", messageID, "--to", folder], bus: bus)
        #expect(stalled.status != 0, "\(stalled)")
        #expect(stalled.output.contains("/download failed: no answer within 9 s"), "\(stalled)\n\(daemon.stderr.suffix(2000))")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true, "nothing is left behind")

        _ = try await simulator.control("POST", "/control/gms/fault?kind=up")
        let saved = try await Self.chat(["save", messageID, "--to", folder], bus: bus)
        #expect(saved.status == 0, "\(saved)")
        #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == Data("Notes\n".utf8))
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// A file larger than GMS takes (its limits' `upload-max-file-size`, 1 MiB on the simulator) is refused
    /// before any upload, saying what it takes.
    @Test func aFileLargerThanGMSTakesIsRefusedBeforeTheUpload() async throws {
        let simulator = try await Simulator(["--gms-greeting-delay", "0.2"])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let bus = try await PrivateBus()
        let daemon = try await TokenDaemonTests.daemon(GMSChatDaemonTests.configuration(simulator), scratch: scratch, bus: bus)
        try await CXoneChatDaemonTests.waitForListening(bus, daemon)
        try await eventually("the chat at GMS") { !(try await GMSChatDaemonTests.gmsChats(simulator)).isEmpty }
        let large = scratch.path + "/scan.pdf"
        try Data(count: 1_048_577).write(to: URL(fileURLWithPath: large))
        let refused = try await Self.chat(["send", "--file", large], bus: bus)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.output.contains("scan.pdf"), "\(refused)")
        #expect(refused.output.contains("1048576 bytes"), "\(refused)\n\(daemon.stderr.suffix(2000))")
        let rows = try await GMSChatDaemonTests.gmsChats(simulator).last?["transcript"] as? [[String: Any]] ?? []
        #expect(!rows.contains { $0["type"] as? String == "FileUploaded" }, "nothing uploaded: \(rows)")
        await CXoneChatDaemonTests.stop(daemon)
    }
}
