import AsyncHTTPClient
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Chat API v2's file management as GMS documents it (GMS API Reference, "Chat API Version 2": file
/// management is REST, `POST /genesys/2/chat/{serviceName}/{chatId}/file…` with the chat's `secureKey`;
/// Chat Server's `client-file-transfer` options, docs.genesys.com/Documentation/ESChat/latest/Admin/FileTransfer:
/// `upload-max-file-size` and `upload-max-total-size` in bytes, `upload-max-files` per chat session,
/// `upload-file-types` the extensions taken, colon-separated), over real HTTP with requests of the tests'
/// own: `…/file/limits` (fileGetLimits) answers a `Notice` row `file-client-cfg-get` whose `userData`
/// carries the limits and what the chat used; `…/file` (fileUpload, `multipart/form-data` with the file as
/// the part `file`, RFC 7578) a `FileUploaded` row naming the file in its `userData` (`file-id`, …);
/// `…/file/{fileId}/download` (fileDownload) the file's bytes. A refusal is `statusCode` 2 with
/// `errors:[{code, advice}]`, as every v2 answer.
@Suite struct GMSChatFileTests {
    /// A v2 chat started over CometD: the server, the chat's id and secureKey, and its file base URL.
    struct Chat {
        let simulator: ContactCenterSimulator
        let id: String
        let secureKey: String
        var base: String { "\(self.simulator.gms.baseURL)/2/chat/\(self.simulator.gms.serviceName)/\(self.id)/file" }
    }

    /// The limits are fileGetLimits' (all four, or the server's defaults).
    static func chat(types: [String]? = nil, maxFileSize: Int? = nil, maxFiles: Int? = nil, maxTotalSize: Int? = nil) async throws -> Chat {
        var settings = GMSServerSettings(greetingDelay: .milliseconds(1))
        if let types { settings.uploadFileTypes = types }
        if let maxFileSize { settings.uploadMaxFileSize = maxFileSize }
        if let maxFiles { settings.uploadMaxFiles = maxFiles }
        if let maxTotalSize { settings.uploadMaxTotalSize = maxTotalSize }
        let (simulator, client) = try await GMSChatServerTests.start(settings)
        let (_, secureKey, _) = try await GMSChatV2Tests.startChat(simulator, client)
        let id = try #require(simulator.gms.chats.first?.id)
        return Chat(simulator: simulator, id: id, secureKey: secureKey)
    }

    /// One POST; the status and the body.
    static func post(_ url: String, body: [UInt8], contentType: String) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), Array(collected.readableBytesView))
    }

    /// A form POST (`application/x-www-form-urlencoded`); the JSON answer.
    static func form(_ url: String, _ fields: [String: String]) async throws -> [String: Any] {
        let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.escaped($0.value))" }.joined(separator: "&")
        let (status, answer) = try await Self.post(url, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded")
        try #require(status == 200, "\(url): \(status) \(String(decoding: answer, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// fileUpload: `multipart/form-data` (RFC 7578) with `secureKey` and the file as the part `file`.
    /// `separator` goes between a Content-Disposition's parameters (RFC 7578 §4.2 shows "; ", RFC 2183's
    /// grammar allows none).
    static func upload(
        _ chat: Chat,
        name: String,
        type: String = "text/plain",
        bytes: [UInt8],
        secureKey: String? = nil,
        separator: String = "; "
    ) async throws -> [String: Any] {
        let boundary = "----attendant-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        func field(_ name: String, _ value: String) {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data\(separator)name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        field("secureKey", secureKey ?? chat.secureKey)
        field("userId", "ignored-by-the-test")
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data\(separator)name=\"file\"\(separator)filename=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n"
                .utf8
        )
        body += bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        let (status, answer) = try await Self.post(chat.base, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        try #require(status == 200, "fileUpload: \(status) \(String(decoding: answer, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
    }

    /// fileGetLimits' `userData`.
    static func limits(_ chat: Chat) async throws -> [String: String] {
        let answer = try await Self.form(chat.base + "/limits", ["secureKey": chat.secureKey])
        #expect(answer["statusCode"] as? Int == 0, "\(answer)")
        let rows = answer["messages"] as? [[String: Any]] ?? []
        let notice = try #require(rows.first { $0["type"] as? String == "Notice" && $0["text"] as? String == "file-client-cfg-get" }, "\(answer)")
        return try #require(notice["userData"] as? [String: String], "\(notice)")
    }

    /// fileDownload: the status, and the body (the file's bytes, or a v2 answer).
    static func download(_ chat: Chat, id: String) async throws -> (status: Int, body: [UInt8]) {
        let url = chat.base + "/\(Self.escaped(id))/download"
        return try await Self.post(url, body: Array("secureKey=\(chat.secureKey)".utf8), contentType: "application/x-www-form-urlencoded")
    }

    static func errors(_ answer: [String: Any]) -> [[String: Any]] { answer["errors"] as? [[String: Any]] ?? [] }

    /// The FileUploaded rows of the chat's transcript (`/control/gms/chats`' view of it).
    static func fileRows(_ chat: Chat) -> [String] {
        chat.simulator.gms.chats.first?.rows.filter { $0.file != nil }.compactMap { $0.file?.name } ?? []
    }

    @Test func theLimitsAreTheChatServersClientFileTransferOptionsAndWhatTheChatUsed() async throws {
        let chat = try await Self.chat(types: ["pdf", "txt"], maxFileSize: 1000, maxFiles: 2, maxTotalSize: 1500)
        defer { Task { await chat.simulator.stop() } }
        var limits = try await Self.limits(chat)
        #expect(limits["upload-file-types"] == "pdf:txt", "colon-separated extensions: \(limits)")
        #expect(limits["upload-max-file-size"] == "1000" && limits["upload-max-files"] == "2" && limits["upload-max-total-size"] == "1500")
        #expect(limits["used-upload-max-files"] == "0" && limits["used-upload-max-total-size"] == "0", "\(limits)")

        let uploaded = try await Self.upload(chat, name: "notes.txt", bytes: Array(repeating: 0x61, count: 700))
        #expect(uploaded["statusCode"] as? Int == 0, "\(uploaded)")
        limits = try await Self.limits(chat)
        #expect(limits["used-upload-max-files"] == "1" && limits["used-upload-max-total-size"] == "700", "\(limits)")

        // A second file within its own limit but past the chat's total is refused; a third file would be
        // one too many even if small.
        let total = try await Self.upload(chat, name: "more.txt", bytes: Array(repeating: 0x62, count: 900))
        #expect(total["statusCode"] as? Int == 2 && !Self.errors(total).isEmpty, "past upload-max-total-size: \(total)")
        _ = try await Self.upload(chat, name: "small.txt", bytes: [0x63])
        let third = try await Self.upload(chat, name: "third.txt", bytes: [0x64])
        #expect(third["statusCode"] as? Int == 2 && !Self.errors(third).isEmpty, "past upload-max-files: \(third)")
        #expect(Self.fileRows(chat) == ["notes.txt", "small.txt"])

        // Without the chat's secureKey the limits are not told.
        let stranger = try await Self.form(chat.base + "/limits", ["secureKey": "not-the-key"])
        #expect(stranger["statusCode"] as? Int == 2 && (stranger["messages"] as? [Any] ?? []).isEmpty, "\(stranger)")
    }

    @Test func anUploadIsTheCustomersFileUploadedRowAndDownloadsByItsID() async throws {
        let chat = try await Self.chat()
        defer { Task { await chat.simulator.stop() } }
        let bytes = Array("%PDF-1.4 not really\n".utf8) + [0, 1, 2, 255]
        let answer = try await Self.upload(chat, name: "Invoice March.pdf", type: "application/pdf", bytes: bytes)
        #expect(answer["statusCode"] as? Int == 0 && answer["chatId"] as? String == chat.id, "\(answer)")
        let row = try #require((answer["messages"] as? [[String: Any]])?.first { $0["type"] as? String == "FileUploaded" }, "\(answer)")
        #expect((row["from"] as? [String: Any])?["type"] as? String == "Client", "the customer's: \(row)")
        let file = try #require(row["userData"] as? [String: String], "\(row)")
        #expect(file["file-name"] == "Invoice March.pdf" && file["file-size"] == String(bytes.count) && file["file-type"] == "application/pdf")
        let id = try #require(file["file-id"])

        let download = try await Self.download(chat, id: id)
        #expect(download.status == 200 && download.body == bytes, "the bytes as uploaded")

        // The agent's files download the same way.
        let agents = try chat.simulator.gms.agentSendsFile(name: "terms.txt", mimeType: "text/plain", bytes: Array("terms".utf8))
        #expect(try await Self.download(chat, id: agents).body == Array("terms".utf8))

        // Parameters without a space after the semicolon are the same form (RFC 2183's grammar).
        let tight = try await Self.upload(chat, name: "tight.txt", bytes: Array("tight".utf8), separator: ";")
        #expect(tight["statusCode"] as? Int == 0, "\(tight)")
        #expect(Self.fileRows(chat) == ["Invoice March.pdf", "terms.txt", "tight.txt"])
    }

    @Test func anOversizedFileAndAForbiddenTypeAreRefusedAndNothingIsKept() async throws {
        let chat = try await Self.chat(types: ["pdf", "txt"], maxFileSize: 1024)
        defer { Task { await chat.simulator.stop() } }
        let oversized = try await Self.upload(chat, name: "big.pdf", type: "application/pdf", bytes: Array(repeating: 0x25, count: 1025))
        #expect(oversized["statusCode"] as? Int == 2, "\(oversized)")
        let sizeAdvice = Self.errors(oversized).first?["advice"] as? String ?? ""
        #expect(sizeAdvice.contains("1024"), "names the limit: \(oversized)")
        let exactly = try await Self.upload(chat, name: "exact.pdf", type: "application/pdf", bytes: Array(repeating: 0x25, count: 1024))
        #expect(exactly["statusCode"] as? Int == 0, "upload-max-file-size is the largest taken: \(exactly)")

        for name in ["setup.exe", "SETUP.EXE", "archive.tar.gz", "no-extension", "txt"] {
            let refused = try await Self.upload(chat, name: name, type: "application/octet-stream", bytes: [1, 2, 3])
            #expect(refused["statusCode"] as? Int == 2 && !Self.errors(refused).isEmpty, "\(name): \(refused)")
        }
        let upper = try await Self.upload(chat, name: "SCAN.PDF", type: "application/pdf", bytes: [0x25])
        #expect(upper["statusCode"] as? Int == 0, "an extension is taken in any case: \(upper)")
        #expect(Self.fileRows(chat) == ["exact.pdf", "SCAN.PDF"], "nothing refused is in the transcript")
        let limits = try await Self.limits(chat)
        #expect(limits["used-upload-max-files"] == "2" && limits["used-upload-max-total-size"] == "1025", "\(limits)")

        // A request without the file, or with another chat's key, uploads nothing.
        let stranger = try await Self.upload(chat, name: "ok.txt", bytes: [1], secureKey: "not-the-key")
        #expect(stranger["statusCode"] as? Int == 2, "\(stranger)")
        let empty = try await Self.form(chat.base, ["secureKey": chat.secureKey])
        #expect(empty["statusCode"] as? Int == 2, "\(empty)")
        #expect(Self.fileRows(chat).count == 2)
    }

    /// A file's name is the customer's text: GMS keeps it as given and never takes it as a path, so a
    /// name with `../` is just a name (making it safe to save is the receiver's part), and a file id with
    /// `../` names no file.
    @Test func aNameWithDotDotIsKeptAsANameAndAnUnknownFileIDIsAnError() async throws {
        let chat = try await Self.chat()
        defer { Task { await chat.simulator.stop() } }
        let answer = try await Self.upload(chat, name: "../../etc/passwd.txt", bytes: Array("not a password file".utf8))
        #expect(answer["statusCode"] as? Int == 0, "\(answer)")
        let row = try #require((answer["messages"] as? [[String: Any]])?.first { $0["type"] as? String == "FileUploaded" }, "\(answer)")
        let file = try #require(row["userData"] as? [String: String])
        #expect(file["file-name"] == "../../etc/passwd.txt", "kept as given: \(file)")
        let id = try #require(file["file-id"])
        #expect(try await Self.download(chat, id: id).body == Array("not a password file".utf8))

        for unknown in ["no-such-file", "../limits", "../../\(id)", id + "x", ""] {
            let (status, body) = try await Self.download(chat, id: unknown)
            let text = String(decoding: body, as: UTF8.self)
            #expect(!text.contains("not a password file"), "\(unknown): \(text)")
            if status == 200 {
                let answer = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "\(unknown): \(text)")
                #expect(answer["statusCode"] as? Int == 2 && !Self.errors(answer).isEmpty, "\(unknown): \(answer)")
            } else {
                #expect(status == 404, "\(unknown): \(status) \(text)")
            }
        }
        // Another chat's key does not download this chat's file.
        let stolen = try await Self.post(
            chat.base + "/\(id)/download",
            body: Array("secureKey=not-the-key".utf8),
            contentType: "application/x-www-form-urlencoded"
        )
        #expect(!String(decoding: stolen.body, as: UTF8.self).contains("not a password file"), "\(stolen)")
    }
}
