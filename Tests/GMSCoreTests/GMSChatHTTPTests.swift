import AttendantPluginAPI
import AttendantPluginKit
import GMSCore
import Testing

/// ``GMSChatHTTP``, the GMS chat's HTTP calls beside CometD with no network: v1's form POSTs and v2's file
/// calls as requests, and what each answer or failure reads as.
@Suite struct GMSChatHTTPTests {
    static let http = GMSChatHTTP(
        baseURL: "https://gms.example.com/genesys",
        gmsUser: "user-7",
        serverDescription: "GMS at https://gms.example.com/genesys (chat API v1)",
        networkDelay: .seconds(4)
    )
    static let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1", userID: "u-1", alias: "117")

    static func answer(_ status: Int, _ body: String) -> Result<NetworkResponse, NetworkError> {
        .success(NetworkResponse(status: status, body: Array(body.utf8)))
    }

    static func message<Value>(_ result: Result<Value, ChannelError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    @Test func aV1FormIsPostedWithTheGMSUserHeaderWithinOneRoundTrip() {
        let form = GMSChatV1Form.refresh(serviceID: "svc-1", after: 4)
        let request = Self.http.request(form)
        #expect(request.method == "POST")
        #expect(request.url == "https://gms.example.com/genesys/1/service/svc-1/ixn/chat/refresh")
        #expect(request.headers.contains(NetworkHeader("gms_user", "user-7")))
        #expect(request.headers.contains(NetworkHeader("Content-Type", "application/x-www-form-urlencoded")))
        #expect(request.body == form.body)
        #expect(request.timeout == .seconds(4))
    }

    @Test func aV1AnswerIsItsObjectOrARefusalNamingTheServerAndTheOperation() throws {
        let form = GMSChatV1Form.requestChat(service: "request-chat", subject: nil)
        #expect(try Self.http.read(Self.answer(200, #"{"_id": "svc-9"}"#), of: form).get()["_id"]?.stringValue == "svc-9")

        let unavailable = Self.http.read(Self.answer(503, #"{"message": "overloaded"}"#), of: form)
        #expect(
            Self.message(unavailable)
                == "gms-chat: GMS at https://gms.example.com/genesys (chat API v1): request-chat was refused (HTTP 503): overloaded"
        )
        if case .failure(let error) = unavailable { #expect(error.code == .transient) }

        let refused = Self.http.read(Self.answer(400, "<html>"), of: form)
        if case .failure(let error) = refused { #expect(error.code == .server) } else { Issue.record("a 400 is a refusal") }

        let lost = Self.http.read(.failure(NetworkError(.connection, "POST https://gms.example.com/… failed: refused")), of: form)
        #expect(
            Self.message(lost)
                == "gms-chat: GMS at https://gms.example.com/genesys (chat API v1): request-chat failed: POST https://gms.example.com/… failed: refused"
        )

        #expect(throws: ChannelError.self) { try Self.http.serviceID(["_id": .string("")]) }
        #expect(try Self.http.serviceID(["_id": .string("svc-9")]) == "svc-9")
    }

    @Test func aFileCallsFailuresSayWhatGMSSaidOrThatTheAnswerWasTooLarge() throws {
        let download = try #require(GMSChatFileOperation.download(service: "customer-support", keys: Self.keys, fileID: "f-1"))
        let request = Self.http.request(download, maximumResponseSize: 64)
        #expect(request.url == "https://gms.example.com/genesys/2/chat/customer-support/chat-1/file/f-1/download")
        #expect(request.maximumResponseSize == 64)
        #expect(request.timeout == .seconds(12))

        let large = Self.http.response(.failure(NetworkError(.tooLarge, "too large")), of: download, limit: 64)
        #expect(
            Self.message(large)
                == "gms-chat: fileDownload from GMS at https://gms.example.com/genesys (chat API v1) brought more than 64 bytes, more than attendant takes"
        )
        let missing = Self.http.response(Self.answer(404, #"{"message": "no such file"}"#), of: download, limit: 64)
        #expect(
            Self.message(missing)
                == "gms-chat: GMS at https://gms.example.com/genesys (chat API v1) refused fileDownload: was refused (HTTP 404): no such file"
        )
        #expect(try Self.http.response(Self.answer(200, "bytes"), of: download, limit: 64).get().body == Array("bytes".utf8))

        let upload = try #require(
            GMSChatFileOperation.upload(service: "customer-support", keys: Self.keys, name: "a.exe", mimeType: "x", bytes: [1], boundary: "b")
        )
        let refusal = #"{"statusCode": 2, "errors": [{"code": 241, "advice": "file type not allowed"}]}"#
        let refusedBody = NetworkResponse(status: 200, body: Array(refusal.utf8))
        #expect(throws: ChannelError.self) { try Self.http.answer(refusedBody, of: upload) }
        do {
            _ = try Self.http.answer(refusedBody, of: upload)
        } catch {
            #expect(error.message == "gms-chat: GMS at https://gms.example.com/genesys (chat API v1) refused fileUpload: 241: file type not allowed")
        }
        #expect(try Self.http.answer(NetworkResponse(status: 200, body: Array(#"{"statusCode": 0}"#.utf8)), of: upload)["statusCode"] != nil)
    }
}
