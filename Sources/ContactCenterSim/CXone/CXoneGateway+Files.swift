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
}
