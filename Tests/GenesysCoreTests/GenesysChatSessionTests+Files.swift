import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GenesysCore
import Synchronization
import Testing

/// Files: the upload checked and made as the SDK makes it, and an expired download URL refreshed.
extension GenesysChatSessionTests {
    /// Our file: refused when the deployment does not take it; else onAttachment, the PUT to the presigned
    /// URL with its headers, UploadSuccessEvent, then a Text message with the attachment, whose copy
    /// answers the caller.
    @Test func aFileIsCheckedThenUploadedAsTheSDKUploadsIt() throws {
        var harness = Harness()
        try harness.listening()
        let file = ChatFile(name: "hello.txt", mimeType: "text/plain", bytes: Array("hello".utf8))
        // The test deployment has no fileUpload: it takes no files.
        #expect(throws: ChannelError.self) { try harness.session.sendFile(file, 2, now: Self.now) }

        var withFiles = Harness()
        let deployment = Array(
            #"{"id":"deploymentId","status":"Active","messenger":{"enabled":true,"apps":{"conversations":{"messagingEndpoint":"wss://x"}},"fileUpload":{"modes":[{"fileTypes":["text/plain"],"maxFileSizeKB":100}]}}}"#
                .utf8
        )
        _ = withFiles.run { $0.listen(1, timeout: .seconds(30), now: Self.now) }
        _ = withFiles.run { $0.deploymentFetched(.success(try! GenesysDeploymentConfig(decoding: deployment)), now: Self.now) }
        _ = withFiles.run { $0.linkOpened(now: Self.now) }
        _ = withFiles.frame(Self.configured)
        do {
            _ = try withFiles.session.sendFile(ChatFile(name: "scan.pdf", mimeType: "application/pdf", bytes: [1]), 3, now: Self.now)
            Issue.record("a PDF went out")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("the deployment takes text/plain"), "\(error)")
        }
        let asked = try #require(Self.written(try withFiles.session.sendFile(file, 4, now: Self.now)).first)
        guard case .onAttachment(let upload) = asked.action else {
            Issue.record("not onAttachment: \(asked.action)")
            return
        }
        #expect(upload.fileName == "hello.txt" && upload.fileType == "text/plain" && upload.fileSize == 5 && upload.errorsAsJson)
        let presigned = withFiles.frame(
            #"{"type":"response","class":"PresignedUrlResponse","code":200,"body":{"attachmentId":"\#(upload.attachmentId)","headers":{"x-amz-tagging":"abc"},"url":"https://uploads.example.com/x"}}"#
        )
        let puts = presigned.compactMap { if case .work(.upload(let request, _)) = $0 { request } else { nil } }
        #expect(puts.map(\.method) == ["PUT"] && puts.first?.body == Array("hello".utf8))
        #expect(puts.first?.headers == [NetworkHeader("x-amz-tagging", "abc")])
        #expect(withFiles.run { $0.uploaded(upload.attachmentId, failure: nil) }.isEmpty)
        let success = withFiles.frame(
            #"{"type":"message","class":"UploadSuccessEvent","code":200,"body":{"attachmentId":"\#(upload.attachmentId)","downloadUrl":"https://d","timestamp":"2022-08-22T19:24:26.704Z"}}"#
        )
        let message = try #require(Self.written(success).first)
        #expect(message.action == .onMessage(.text("", content: [.attachment(id: upload.attachmentId)])))
        let copy = withFiles.frame(Self.ours("f1", "", tracingId: try #require(message.tracingId)))
        #expect(Self.replies(copy)[4] == .success(.fields(["delivery": "sent", "message": "f1", "thread": "thread-1"])))
    }

    /// An agent's download URL that expired (SDK `MessagingClient.refreshAttachmentUrl`: "typically expires
    /// after 10 minutes"): `getAttachment {attachmentId}`, and the PresignedUrlResponse that is a refresh
    /// (no headers, a size: `isRefreshUrl`) gives the URL the next download uses; a refusal (4008) reaches
    /// the caller with the service's code, and nothing is asked unless configured.
    @Test func anExpiredDownloadURLIsRefreshedWithGetAttachment() throws {
        var harness = Harness()
        try harness.listening()
        let content =
            #"[{"contentType":"Attachment","attachment":{"id":"att-1","url":"https://files.example.com/old","filename":"invoice.txt","fileSize":11,"mediaType":"File","mime":"text/plain"}}]"#
        _ = harness.frame(Self.agentSays("m1", "Here is your invoice.", content: content))
        #expect(try harness.session.download(messageID: "m1", attachmentID: "att-1", maximumSize: 100).0.url == "https://files.example.com/old")
        let asked = try harness.session.refreshDownload(messageID: "m1", attachmentID: "att-1", 5, now: Self.now)
        let request = try #require(Self.written(asked).first)
        #expect(request.action == .getAttachment(attachmentId: "att-1"))
        #expect(asked.contains { if case .setTimer(.request(5), _) = $0 { true } else { false } })
        // An upload's PresignedUrlResponse (with headers) for the same id is not the refresh.
        let upload = harness.frame(
            #"{"type":"response","class":"PresignedUrlResponse","code":200,"body":{"attachmentId":"att-1","headers":{"x-amz-tagging":"abc"},"url":"https://uploads.example.com/x"}}"#
        )
        #expect(Self.replies(upload)[5] == nil)
        let fresh = harness.frame(
            #"{"type":"response","class":"PresignedUrlResponse","code":200,"tracingId":"\#(request.tracingId ?? "")","body":{"attachmentId":"att-1","headers":{},"url":"https://files.example.com/new","fileName":"invoice.txt","fileSize":11,"fileType":"text/plain"}}"#
        )
        #expect(Self.replies(fresh)[5] == .success(.done))
        #expect(try harness.session.download(messageID: "m1", attachmentID: "att-1", maximumSize: 100).0.url == "https://files.example.com/new")

        let again = try #require(Self.written(try harness.session.refreshDownload(messageID: "m1", attachmentID: "att-1", 6, now: Self.now)).first)
        let refused = harness.frame(
            #"{"type":"response","class":"string","code":4008,"tracingId":"\#(again.tracingId ?? "")","body":"Attachment has expired"}"#
        )
        let failure = try #require(Self.replies(refused)[6])
        #expect(throws: ChannelError.self) { try failure.get() }
        if case .failure(let error) = failure { #expect(error.code == .server && error.message.contains("4008"), "\(error)") }
        #expect(throws: ChannelError.self) { try harness.session.refreshDownload(messageID: "m1", attachmentID: "nope", 7, now: Self.now) }

        _ = harness.frame(Self.disconnect)
        #expect(throws: ChannelError.self) { try harness.session.refreshDownload(messageID: "m1", attachmentID: "att-1", 8, now: Self.now) }
    }
}
