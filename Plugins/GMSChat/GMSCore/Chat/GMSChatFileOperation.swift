#if canImport(AttendantPluginKit)
package import AttendantPluginKit
#endif

/// GMS chat API v2's file management, over HTTP beside the CometD chat: form POSTs under
/// `<base>/2/chat/<service>/<chatId>/file`, each with the chat's `userId`, `secureKey` and `alias`, as a
/// GMS REST v2 chat widget sends them (gms-cometd.md §2: "Files are not on CometD"; the operations
/// `fileGetLimits`, `fileUpload` (multipart, the file as the part `file`), `fileDownload`, `fileDelete`):
/// - `…/file/limits`: the limits, as a `Notice` row `file-client-cfg-get` whose `userData` holds them;
/// - `…/file`: a multipart upload;
/// - `…/file/<fileId>/download`: the file's bytes.
package struct GMSChatFileOperation: Sendable, Hashable {
    /// Under the base URL: `/2/chat/<service>/<chatId>/file…`.
    package var path: String
    package var body: [UInt8]
    package var contentType: String
    /// What messages call it: `fileGetLimits`, `fileUpload`, `fileDownload`.
    package var what: String

    static func path(service: String, chatID: String) -> String {
        "/2/chat/\(GMSChatV1Form.formEncoded(service))/\(GMSChatV1Form.formEncoded(chatID))/file"
    }

    static func keyFields(_ keys: GMSChatKeys) -> [String: String] {
        var fields: [String: String] = [:]
        fields["secureKey"] = keys.secureKey
        fields["userId"] = keys.userID
        fields["alias"] = keys.alias
        return fields
    }

    static func form(_ fields: [String: String]) -> [UInt8] {
        GMSChatV1Form(path: "", fields: fields, what: "").body
    }

    /// `fileGetLimits`; nil without the chat's id.
    package static func limits(service: String, keys: GMSChatKeys) -> GMSChatFileOperation? {
        guard let chatID = keys.chatID else { return nil }
        return GMSChatFileOperation(
            path: Self.path(service: service, chatID: chatID) + "/limits",
            body: Self.form(Self.keyFields(keys)),
            contentType: "application/x-www-form-urlencoded",
            what: "fileGetLimits"
        )
    }

    /// `fileDownload` of `fileID`; nil without the chat's id.
    package static func download(service: String, keys: GMSChatKeys, fileID: String) -> GMSChatFileOperation? {
        guard let chatID = keys.chatID else { return nil }
        return GMSChatFileOperation(
            path: Self.path(service: service, chatID: chatID) + "/\(GMSChatV1Form.formEncoded(fileID))/download",
            body: Self.form(Self.keyFields(keys)),
            contentType: "application/x-www-form-urlencoded",
            what: "fileDownload"
        )
    }

    /// `fileUpload` of a file, as `multipart/form-data` with `boundary`; nil without the chat's id.
    package static func upload(
        service: String,
        keys: GMSChatKeys,
        name: String,
        mimeType: String,
        bytes: [UInt8],
        boundary: String
    ) -> GMSChatFileOperation? {
        guard let chatID = keys.chatID else { return nil }
        var body: [UInt8] = []
        func append(_ text: String) { body += Array(text.utf8) }
        for (key, value) in Self.keyFields(keys).sorted(by: { $0.key < $1.key }) {
            append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(key)\"\r\n\r\n\(value)\r\n")
        }
        // RFC 7578 §4.2: the file name as a quoted string; quotes and line breaks cannot be in it.
        let quoted = String(name.map { $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\\" ? "_" : $0 })
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(quoted)\"\r\nContent-Type: \(mimeType)\r\n\r\n")
        body += bytes
        append("\r\n--\(boundary)--\r\n")
        return GMSChatFileOperation(
            path: Self.path(service: service, chatID: chatID),
            body: body,
            contentType: "multipart/form-data; boundary=\(boundary)",
            what: "fileUpload"
        )
    }
}

/// What GMS takes in a chat, from `fileGetLimits`' answer: `{"messages":[{"type":"Notice","text":
/// "file-client-cfg-get","userData":{"upload-max-file-size":"10485760","upload-file-types":"jpeg:jpg:pdf:png:zip",
/// "upload-max-files":"5","used-upload-max-files":"0","upload-max-total-size":"99614720",
/// "used-upload-max-total-size":"0",…}}],"statusCode":0}` (C2 `HttpResponse.java`; every value a string).
package struct GMSChatFileLimits: Sendable, Hashable {
    /// File name extensions, lower-cased (`upload-file-types`, colon-separated); empty: any.
    package var types: [String]
    package var maxFileSize: Int?
    package var maxFiles: Int?
    package var usedFiles: Int
    package var maxTotalSize: Int?
    package var usedTotalSize: Int

    package init(
        types: [String] = [],
        maxFileSize: Int? = nil,
        maxFiles: Int? = nil,
        usedFiles: Int = 0,
        maxTotalSize: Int? = nil,
        usedTotalSize: Int = 0
    ) {
        self.types = types
        self.maxFileSize = maxFileSize
        self.maxFiles = maxFiles
        self.usedFiles = usedFiles
        self.maxTotalSize = maxTotalSize
        self.usedTotalSize = usedTotalSize
    }

    /// Reads the limits from the answer's rows (the first with a `userData` that has any of them).
    package init(reply: [String: JSONValue]) throws(GMSDecodeError) {
        let rows = reply["messages"]?.arrayValue ?? []
        guard
            let data = rows.lazy.compactMap({ $0["userData"] }).first(where: { $0["upload-max-file-size"] != nil || $0["upload-file-types"] != nil })
        else {
            throw GMSDecodeError(problem: "the answer has no row whose userData holds upload-max-file-size or upload-file-types")
        }
        self.init(
            types: (data["upload-file-types"]?.stringValue ?? "").split(separator: ":").map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty },
            maxFileSize: data["upload-max-file-size"]?.looseInteger,
            maxFiles: data["upload-max-files"]?.looseInteger,
            usedFiles: data["used-upload-max-files"]?.looseInteger ?? 0,
            maxTotalSize: data["upload-max-total-size"]?.looseInteger,
            usedTotalSize: data["used-upload-max-total-size"]?.looseInteger ?? 0
        )
    }

    /// Why GMS would not take a file named `name` of `size` bytes, naming what it takes; nil if it would.
    /// The type is the name's extension, as GMS's widget checks it.
    package func refusal(name: String, size: Int) -> String? {
        let fileExtension = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        if !self.types.isEmpty, !self.types.contains(fileExtension) {
            let given = fileExtension.isEmpty ? "has no type (no extension)" : "is of type \(fileExtension)"
            return "\(name) \(given); it takes \(self.types.joined(separator: ", ")) files\(self.sizeClause)"
        }
        if let max = self.maxFileSize, size > max {
            return "\(name) has \(size) bytes; it takes files up to \(max) bytes"
        }
        if let max = self.maxFiles, self.usedFiles >= max {
            return "this chat has sent \(self.usedFiles) files, the most it takes (\(max))"
        }
        if let max = self.maxTotalSize, self.usedTotalSize + size > max {
            return "this chat has sent \(self.usedTotalSize) bytes; with \(name) (\(size) bytes) it would pass the \(max) bytes it takes in all"
        }
        return nil
    }

    private var sizeClause: String { self.maxFileSize.map { " up to \($0) bytes" } ?? "" }
}

extension Substring {
    var trimmingSpaces: String { String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
