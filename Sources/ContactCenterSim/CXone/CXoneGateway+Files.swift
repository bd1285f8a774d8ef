import Foundation
import Synchronization

/// Files the agent attaches: a message whose `attachments` (`{url, friendlyName, mimeType, fileName}`, the
/// CXone SDK's `AttachmentDTO`) point at the gateway's `/files/{id}`, with a `signature` in the query as a
/// pre-signed storage URL carries one: a download without it is refused.
extension CXoneGateway {
    /// The agent sends `bytes` as the file `name` in a thread, with `text` (may be empty).
    @discardableResult
    package func agentSendsFile(
        threadID: String,
        name: String,
        mimeType: String,
        bytes: [UInt8],
        text: String = ""
    ) throws(SimulatorError)
        -> CXoneGatewayMessage
    {
        let id = SimCXoneID.random()
        let signature = SimCXoneID.random()
        self.state.withLock { $0.files[id] = (bytes, signature) }
        let attachment: GMSJSON = [
            "url": .string("\(self.httpBase())/files/\(id)?signature=\(signature)"),
            "friendlyName": .string(name),
            "fileName": .string(name),
            "mimeType": .string(mimeType),
        ]
        return try self.agentSends(threadID: threadID, content: CXoneGatewayMessage.textContent(text), attachments: [attachment])
    }

    /// `GET /files/{id}?signature=…`: the file, if the signature is its own.
    func fileReply(id: String, signature: String?) -> HTTPReply {
        guard let file = self.state.withLock({ $0.files[id] }) else { return .error(404, "no file \(id)") }
        guard signature == file.signature else { return .error(403, "the signature of file \(id) is missing or wrong") }
        self.state.withLock { $0.fileDownloads += 1 }
        return HTTPReply(status: 200, body: "", bytes: file.bytes)
    }

    /// How many attachment downloads were answered.
    package var fileDownloads: Int { self.state.withLock { $0.fileDownloads } }

    /// The files the customer uploaded, in order.
    package var uploads: [CXoneGatewayUpload] { self.state.withLock { $0.uploads } }

    /// `POST …/attachment` `{"content": base64, "fileName", "mimeType"}`, as the CXone mobile SDK uploads a
    /// file for a message: `{"fileUrl"}` where the file is kept (signed, as ``agentSendsFile`` files are),
    /// or, with status 200 as the SDK expects it, the channel's restrictions when the file is too large or
    /// of a type the channel does not take (the SDK's AttachmentUploadFailResponseDTO).
    func uploadReply(_ body: [UInt8]) -> HTTPReply {
        guard let json = GMSJSON.parse(body), let content = json["content"]?.string, let name = json["fileName"]?.string,
            let mimeType = json["mimeType"]?.string
        else {
            return SimCXoneREST.serviceError("BadRequest", "an upload is {\"content\": base64, \"fileName\", \"mimeType\"}").reply(status: 400)
        }
        guard let bytes = Data(base64Encoded: content).map(Array.init) else {
            return SimCXoneREST.serviceError("BadRequest", "the upload's content is not base64").reply(status: 400)
        }
        let restrictions = self.settings.fileRestrictions
        guard restrictions.takes(mimeType: mimeType, size: bytes.count) else { return restrictions.json.reply() }
        let id = SimCXoneID.random()
        let signature = SimCXoneID.random()
        self.state.withLock { state in
            state.files[id] = (bytes, signature)
            state.uploads.append(CXoneGatewayUpload(name: name, mimeType: mimeType, bytes: bytes))
        }
        return (["fileUrl": .string("\(self.httpBase())/files/\(id)?signature=\(signature)")] as GMSJSON).reply()
    }
}

/// A file the customer uploaded.
package struct CXoneGatewayUpload: Sendable, Hashable {
    package var name: String
    package var mimeType: String
    package var bytes: [UInt8]
}

/// What the channel takes as attachments: `{"allowedFileSize": "10" (MB), "allowedFileTypes": [{"mimeType",
/// "description"}], "isAttachmentsEnabled"}`.
package struct CXoneGatewayFileRestrictions: Sendable, Hashable {
    package var isEnabled = true
    package var megabytes = 10
    /// `image/*` stands for every image type.
    package var mimeTypes = ["image/*", "application/pdf", "text/plain"]

    package init(isEnabled: Bool = true, megabytes: Int = 10, mimeTypes: [String] = ["image/*", "application/pdf", "text/plain"]) {
        self.isEnabled = isEnabled
        self.megabytes = megabytes
        self.mimeTypes = mimeTypes
    }

    var json: GMSJSON {
        [
            "allowedFileSize": .string(String(self.megabytes)),
            "allowedFileTypes": .array(self.mimeTypes.map { ["mimeType": .string($0), "description": .string($0)] }),
            "isAttachmentsEnabled": .bool(self.isEnabled),
        ]
    }

    func takes(mimeType: String, size: Int) -> Bool {
        let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let typeMatches = self.mimeTypes.contains { allowed in
            allowed == type || (allowed.hasSuffix("/*") && type.hasPrefix(String(allowed.dropLast())))
        }
        return self.isEnabled && size <= self.megabytes * 1024 * 1024 && typeMatches
    }
}
