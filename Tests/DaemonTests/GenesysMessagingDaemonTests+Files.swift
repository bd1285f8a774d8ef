import DaemonTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Files: the agent's saved, ours uploaded as the SDK uploads it, an expired download URL refreshed.
extension GenesysMessagingDaemonTests {
    /// The agent sends a file (`/control/genesys/file?QUERY` with `body`) with the message `text`, and
    /// `chat save` stores it in the folder it returns; the save must succeed.
    static func saveAgentsFile(
        _ query: String,
        body: String,
        text: String,
        _ simulator: Simulator,
        _ desktop: DesktopSession,
        _ scratch: Scratch,
        _ daemon: DaemonProcess
    ) async throws -> String {
        _ = try await simulator.control("POST", "/control/genesys/file?" + query, body: body)
        try await eventually("the agent's file") { Self.agentTexts(desktop).contains(text) }
        let message = try #require(Self.messages(desktop).last { $0.text == text })
        let folder = scratch.path + "/downloads"
        let saved = try await Self.ctl(["chat", "save", message.id, "--to", folder], desktop)
        #expect(saved.status == 0, "\(saved)\n\(daemon.stderr.suffix(2000))")
        return folder
    }

    /// A file the agent sent is listed with its message and saved by `chat save` from its presigned URL;
    /// `chat send --file` uploads ours as the SDK does (onAttachment, the PUT with the presigned headers,
    /// UploadSuccessEvent, then the message with the attachment); a file the deployment does not take is
    /// refused before any upload, saying why.
    @Test func theAgentsFileIsSavedAndOursIsUploadedAsTheSDKUploadsIt() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        let folder = try await Self.saveAgentsFile(
            "name=..%2Finvoice.txt&type=text%2Fplain&text=Here%20is%20your%20invoice.",
            body: "Invoice 42\n",
            text: "Here is your invoice.",
            simulator,
            desktop,
            scratch,
            daemon
        )
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1 && !files[0].contains("/"), "\(files)")
        #expect(FileManager.default.contents(atPath: folder + "/" + (files.first ?? "")) == Data("Invoice 42\n".utf8))

        let hello = try scratch.write("hello.txt", "hello")
        let sent = try await Self.ctl(["chat", "send", "--file", hello], desktop)
        #expect(sent.status == 0, "\(sent)\n\(daemon.stderr.suffix(2000))")
        let uploads = try await Self.status(simulator)["uploads"] as? [[String: Any]] ?? []
        #expect(uploads.count == 1 && uploads.first?["name"] as? String == "hello.txt", "\(uploads)")
        let ours = try await Self.conversation(simulator).last { $0["direction"] as? String == "Inbound" }
        let content = ours?["content"] as? [[String: Any]] ?? []
        #expect(content.first?["contentType"] as? String == "Attachment", "\(String(describing: ours))")

        let program = try scratch.write("run.exe", "MZ")
        let refused = try await Self.ctl(["chat", "send", "--file", program], desktop)
        #expect(refused.status != 0 && refused.output.contains("run.exe"), "\(refused)")
        #expect((try await Self.status(simulator)["uploads"] as? [[String: Any]] ?? []).count == 1)
        #expect((try await Self.status(simulator)["received"] as? [String] ?? []).filter { $0 == "onAttachment" }.count == 1)
        await CXoneChatDaemonTests.stop(daemon)
    }

    /// An old message's file, whose download URL expired (signed 11 minutes ago; the SDK says a
    /// `downloadUrl` "typically expires after 10 minutes"): `chat save` is refused by the store (S3's 403
    /// "Request has expired"), asks for a fresh URL with `getAttachment` as the SDK's
    /// `refreshAttachmentUrl`, and saves the file from it.
    @Test func anOldFileWhoseURLExpiredIsSavedFromAFreshURL() async throws {
        let simulator = try await Simulator([])
        defer { _ = simulator.stop() }
        let scratch = try Scratch()
        let desktop = try await DesktopSession()
        let daemon = try await Self.daemon(simulator, desktop: desktop, scratch: scratch)
        let folder = try await Self.saveAgentsFile(
            "name=receipt.txt&type=text%2Fplain&text=Your%20receipt.&age=660",
            body: "Receipt 7\n",
            text: "Your receipt.",
            simulator,
            desktop,
            scratch,
            daemon
        )
        #expect(FileManager.default.contents(atPath: folder + "/receipt.txt") == Data("Receipt 7\n".utf8))
        #expect((try await Self.status(simulator)["received"] as? [String] ?? []).filter { $0 == "getAttachment" }.count == 1)
        await CXoneChatDaemonTests.stop(daemon)
    }
}
