import AttendantPluginAPI
@_spi(Experimental) import AttendantPluginKit
import GMSCore
import Testing

/// Files in a GMS v2 chat: a `FileUploaded` row becomes a message's attachment, `fileGetLimits`' answer
/// decides what may be sent (named in the refusal), and the HTTP requests of the file operations.
@Suite struct GMSChatFilesTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func anAgentsFileUploadedRowIsAMessageWithItsFile() throws {
        let reply = try GMSChatV2Reply(
            decoding: Self.json(
                #"{"secureKey":"k","messages":[{"from":{"nickname":"Ada","participantId":2,"type":"Agent"},"index":4,"type":"FileUploaded","utcTime":1432845088000,"userData":{"file-id":"f-1","file-name":"../invoice.pdf","file-size":"2048","file-type":"application/pdf"}},{"from":{"nickname":"Ada","type":"Agent"},"index":5,"type":"FileUploaded","userData":{}}]}"#
            )
        )
        let message = reply.messages[0].chatMessage(threadID: "gms-t", receivedAt: UnixTime(secondsSince1970: 0))
        #expect(message.kind == .message && message.direction == .fromAgent && message.id == "gms-t#4")
        #expect(message.attachments == [ChatAttachment(id: "f-1", name: "../invoice.pdf", mimeType: "application/pdf", size: 2048)])
        #expect(reply.messages[1].file == nil, "a row without a file-id has no file to fetch")
    }

    @Test func theLimitsNameWhatGMSTakes() throws {
        let answer = try Self.json(
            #"{"messages":[{"from":{"nickname":"test","participantId":1,"type":"Client"},"text":"file-client-cfg-get","type":"Notice","utcTime":1554322581000,"userData":{"download-attempts":"2","upload-max-files":"5","upload-max-file-size":"10485760","used-upload-max-total-size":"0","used-upload-max-files":"0","upload-max-total-size":"99614720","upload-file-types":"jpeg:jpg:pdf:png:zip"}}],"chatEnded":false,"statusCode":0}"#
        )
        guard case .object(let object) = answer else { throw GMSDecodeError(problem: "not an object") }
        let limits = try GMSChatFileLimits(reply: object)
        #expect(
            limits == GMSChatFileLimits(types: ["jpeg", "jpg", "pdf", "png", "zip"], maxFileSize: 10_485_760, maxFiles: 5, maxTotalSize: 99_614_720)
        )
        #expect(limits.refusal(name: "Scan.PDF", size: 100) == nil)
        #expect(limits.refusal(name: "run.exe", size: 100) == "run.exe is of type exe; it takes jpeg, jpg, pdf, png, zip files up to 10485760 bytes")
        #expect(limits.refusal(name: "big.png", size: 10_485_761) == "big.png has 10485761 bytes; it takes files up to 10485760 bytes")
        var used = limits
        used.usedFiles = 5
        #expect(used.refusal(name: "a.png", size: 1) == "this chat has sent 5 files, the most it takes (5)")
        #expect(throws: GMSDecodeError.self) { try GMSChatFileLimits(reply: ["messages": .array([]), "statusCode": .number(0)]) }
    }

    @Test func theFileOperationsArePostsUnderTheChatsFilePath() throws {
        let keys = GMSChatKeys(secureKey: "key 1", chatID: "chat-1", userID: "user-1", alias: "117")
        let limits = try #require(GMSChatFileOperation.limits(service: "customer-support", keys: keys))
        #expect(limits.path == "/2/chat/customer-support/chat-1/file/limits")
        #expect(String(decoding: limits.body, as: UTF8.self) == "alias=117&secureKey=key+1&userId=user-1")
        let download = try #require(GMSChatFileOperation.download(service: "customer-support", keys: keys, fileID: "f/1"))
        #expect(download.path == "/2/chat/customer-support/chat-1/file/f%2F1/download")
        let upload = try #require(
            GMSChatFileOperation.upload(service: "s", keys: keys, name: "a\"b.txt", mimeType: "text/plain", bytes: Array("hi".utf8), boundary: "B")
        )
        #expect(upload.path == "/2/chat/s/chat-1/file" && upload.contentType == "multipart/form-data; boundary=B")
        let body = String(decoding: upload.body, as: UTF8.self)
        #expect(
            body.hasSuffix(
                "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a_b.txt\"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--B--\r\n"
            )
        )
        #expect(body.contains("name=\"secureKey\"\r\n\r\nkey 1\r\n"))
        #expect(GMSChatFileOperation.limits(service: "s", keys: GMSChatKeys(secureKey: "k")) == nil, "no chat id, no path")
    }
}
