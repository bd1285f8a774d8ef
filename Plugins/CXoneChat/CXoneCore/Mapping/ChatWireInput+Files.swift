import AttendantPluginAPI

// A message's attachments (`attachments: [{url, friendlyName, mimeType, fileName}]`, the SDK's
// `AttachmentDTO`): what the host sees of each (``ChatAttachment``) and its address, which only the
// session keeps (``ChatMessageExtras``).
extension ChatWireInput {
    /// The attachments of a message, in order, with ids `1`, `2`, …: the name is `friendlyName`, else
    /// `fileName`, else the last segment of the URL's path; the type `application/octet-stream` when none
    /// is given. CXone says no size.
    static func files(of message: CXoneWire.Message) -> [(shown: ChatAttachment, kept: ChatMessageExtras.File)] {
        message.attachments.enumerated().map { index, attachment in
            let name = [attachment.friendlyName, attachment.fileName].compactMap { $0 }.first { !$0.isEmpty } ?? Self.lastSegment(attachment.url)
            let type = attachment.mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
            return (
                ChatAttachment(id: String(index + 1), name: name, mimeType: type),
                ChatMessageExtras.File(url: attachment.url, name: name, mimeType: type)
            )
        }
    }

    /// `https://h/a/b.pdf?sig=…` → `b.pdf`; `attachment` when there is no segment.
    static func lastSegment(_ url: String) -> String {
        let path = CXoneEndpoints.redacted(url).prefix { $0 != "?" }
        let afterScheme = path.firstRange(of: "://").map { path[$0.upperBound...] } ?? path[...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return "attachment" }
        let segment = afterScheme[afterScheme.index(after: slash)...].split(separator: "/").last.map(String.init) ?? ""
        return segment.isEmpty ? "attachment" : segment
    }
}
