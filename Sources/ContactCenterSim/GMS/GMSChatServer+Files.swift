import Foundation
import Synchronization

/// Chat API v2's file management over HTTP (gms-cometd.md §2: "Files are not on CometD"), as a GMS REST v2
/// chat widget calls it: form POSTs under `/genesys/2/chat/<service>/<chatId>/file`, each with the chat's
/// `secureKey` (and `userId`, `alias`): `…/file/limits` (fileGetLimits: a `Notice` row
/// `file-client-cfg-get` with the limits in its `userData`), `…/file` (fileUpload, multipart, the file
/// as the part `file`: a `FileUploaded` row) and `…/file/<id>/download` (fileDownload: the bytes).
extension GMSChatServer {
    static let v2FilePrefix = "/genesys/2/chat/"

    /// A v2 answer over HTTP: `statusCode` 0, or 2 with `errors:[{code, advice}]`.
    static func v2Answer(_ chat: GMSChatRecord?, rows: [GMSJSON] = [], error: (code: Int, advice: String)? = nil) -> HTTPReply {
        var data: GMSJSON = ["statusCode": .int(error == nil ? 0 : 2), "chatEnded": .bool(chat?.isEnded ?? false), "messages": .array(rows)]
        if let chat { data["chatId"] = .string(chat.id) }
        if let error { data["errors"] = [["code": .int(error.code), "advice": .string(error.advice)]] }
        return data.reply()
    }

    func v2FileRoute(_ request: HTTPRouteRequest) -> HTTPReply {
        let segments = Array(request.segments.dropFirst(3))  // after genesys/2/chat
        guard request.method == "POST", segments.count >= 3, segments[2] == "file" else {
            return .error(404, "no GMS endpoint \(request.method) \(request.path): files are POSTs under /genesys/2/chat/<service>/<chatId>/file")
        }
        let chatID = segments[1]
        if self.stallsDownloads, segments.count == 5, segments[4] == "download" { return .stall }
        let contentType = request.headers["content-type"] ?? ""
        let parts = Self.multipart(request.body, contentType: contentType)
        var fields = request.formBody
        if parts != nil { fields = [:] }
        for part in parts ?? [] where part.filename == nil { fields[part.name] = String(decoding: part.bytes, as: UTF8.self) }
        let (reply, effects) = self.state.withLock { state -> (HTTPReply, [GMSEffect]) in
            guard let chat = state.chats[chatID], chat.version == .v2 else {
                return (Self.v2Answer(nil, error: (102, "no chat \(chatID)")), [])
            }
            guard fields["secureKey"] == chat.secureKey else {
                return (Self.v2Answer(chat, error: (102, "the secureKey is missing or is not chat \(chatID)'s")), [])
            }
            switch Array(segments.dropFirst(3)) {
            case ["limits"]:
                return (Self.v2Answer(chat, rows: [self.limitsRow(chat)]), [])
            case let rest where rest.count == 2 && rest[1] == "download":
                guard let file = chat.rows.lazy.compactMap(\.file).first(where: { $0.id == rest[0] }) else {
                    return (Self.v2Answer(chat, error: (105, "chat \(chatID) has no file \(rest[0])")), [])
                }
                return (HTTPReply(status: 200, body: "", bytes: file.bytes), [])
            case []:
                guard !chat.isEnded else { return (Self.v2Answer(chat, error: (103, "chat \(chat.id) has ended")), []) }
                guard let part = parts?.first(where: { $0.name == "file" && $0.filename != nil }), let name = part.filename else {
                    return (Self.v2Answer(chat, error: (101, "fileUpload needs the file as the multipart part \"file\" with a filename")), [])
                }
                if let refusal = self.uploadRefusal(chat, name: name, size: part.bytes.count) {
                    return (Self.v2Answer(chat, error: (106, refusal)), [])
                }
                let file = GMSChatFile(
                    id: GMSIdentifiers.random(12),
                    name: name,
                    mimeType: part.contentType ?? "application/octet-stream",
                    bytes: part.bytes
                )
                let (rows, pushed) = self.record(
                    [RowEntry(kind: .fileUploaded, party: .client, text: name, file: file)],
                    chat: chatID,
                    except: nil,
                    &state
                )
                return (Self.v2Answer(state.chats[chatID], rows: rows.map(\.v2JSON)), pushed)
            default:
                return (.error(404, "no GMS file endpoint \(request.path)"), [])
            }
        }
        self.perform(effects)
        return reply
    }

    /// The uploads a chat made so far: how many files, how many bytes.
    private func uploads(_ chat: GMSChatRecord) -> (files: Int, bytes: Int) {
        let files = chat.rows.filter { $0.party == .client }.compactMap(\.file)
        return (files.count, files.reduce(0) { $0 + $1.bytes.count })
    }

    private func limitsRow(_ chat: GMSChatRecord) -> GMSJSON {
        let used = self.uploads(chat)
        let settings = self.settings
        return [
            "from": ["nickname": .string(chat.nickname), "participantId": 1, "type": "Client"], "type": "Notice",
            "text": "file-client-cfg-get", "utcTime": .int(self.nowMilliseconds),
            "userData": [
                "upload-file-types": .string(settings.uploadFileTypes.joined(separator: ":")),
                "upload-max-file-size": .string(String(settings.uploadMaxFileSize)),
                "upload-max-files": .string(String(settings.uploadMaxFiles)),
                "used-upload-max-files": .string(String(used.files)),
                "upload-max-total-size": .string(String(settings.uploadMaxTotalSize)),
                "used-upload-max-total-size": .string(String(used.bytes)), "upload-need-agent": "false",
                "download-attempts": "10", "used-download-attempts": "0",
            ],
        ]
    }

    private func uploadRefusal(_ chat: GMSChatRecord, name: String, size: Int) -> String? {
        let type = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        let used = self.uploads(chat)
        if !self.settings.uploadFileTypes.contains(type) { return "file type '\(type)' is not allowed" }
        if size > self.settings.uploadMaxFileSize { return "the file is larger than \(self.settings.uploadMaxFileSize) bytes" }
        if used.files >= self.settings.uploadMaxFiles { return "the chat has uploaded \(used.files) files already" }
        if used.bytes + size > self.settings.uploadMaxTotalSize { return "the chat's uploads would pass \(self.settings.uploadMaxTotalSize) bytes" }
        return nil
    }

    struct FormPart {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    /// The parts of a `multipart/form-data` body (RFC 7578); nil when it is not one.
    static func multipart(_ body: [UInt8], contentType: String) -> [FormPart]? {
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundaryRange = contentType.range(of: "boundary=")
        else { return nil }
        let boundary = String(contentType[boundaryRange.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let data = Data(body)
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [FormPart] = []
        var cursor = data.startIndex
        guard let first = data.range(of: delimiter, in: cursor..<data.endIndex) else { return [] }
        cursor = first.upperBound
        while let next = data.range(of: delimiter, in: cursor..<data.endIndex) {
            var chunk = data[cursor..<next.lowerBound]
            if chunk.starts(with: Data("\r\n".utf8)) { chunk = chunk.dropFirst(2) }
            if chunk.suffix(2) == Data("\r\n".utf8) { chunk = chunk.dropLast(2) }
            if let split = chunk.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
                var part = FormPart(name: "", bytes: Array(chunk[split.upperBound...]))
                for line in head.components(separatedBy: "\r\n") {
                    let lower = line.lowercased()
                    if lower.hasPrefix("content-disposition:") {
                        part.name = Self.parameter("name", in: line) ?? ""
                        part.filename = Self.parameter("filename", in: line)
                    } else if lower.hasPrefix("content-type:") {
                        part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                    }
                }
                parts.append(part)
            }
            cursor = next.upperBound
        }
        return parts
    }

    /// A parameter of a Content-Disposition header line (`form-data; name="file"; filename="a.txt"`): after
    /// a `;`, with or without spaces around it (RFC 2183's grammar), its name in any case, its value quoted
    /// or a bare token. A quoted value ends at the next quote (RFC 7578 §4.2: no escapes are used).
    private static func parameter(_ name: String, in line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var rest = line[line.index(after: colon)...]
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var value = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            if value.first == "\"" {
                value = value.dropFirst()
                let end = value.firstIndex(of: "\"") ?? value.endIndex
                if key.lowercased() == name { return String(value[..<end]) }
                rest = value[end...].dropFirst()
            } else {
                let end = value.firstIndex(of: ";") ?? value.endIndex
                if key.lowercased() == name { return value[..<end].trimmingCharacters(in: .whitespaces) }
                rest = value[end...]
            }
        }
        return nil
    }
}
