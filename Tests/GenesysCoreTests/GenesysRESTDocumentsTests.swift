import AttendantPluginKit
import GenesysCore
import Testing

/// The history page, the deployment's config.json, the file profile and the addresses, from the SDK's
/// fixtures: commonTest/…/network/TestWebMessagingApiResponses.kt, androidUnitTest/…/shyrka/receive/
/// DeploymentConfigTest.kt and util/Urls.kt.
@Suite struct GenesysRESTDocumentsTests {
    @Test func aHistoryPage() throws {
        // TestWebMessagingApiResponses.messageEntityResponseWith3Messages (isoTestTimestamp filled in).
        let page = try GenesysHistoryPage(
            decoding: Array(
                #"{"entities":[{"id":"5befde6373a23f32f20b59b4e1cba0e6","channel":{"time":"2014-04-30T21:09:51.411Z"},"type":"Text","text":"\uD83E\uDD2A","content":[],"direction":"Outbound","originatingEntity":"Bot"},{"id":"46e7001c24abed05e9bcd1a006eb54b7","channel":{"time":null},"type":"Event","events":[{"eventType":"Presence","presence":{"type":"Join"}}],"text":"customer msg 7","content":[],"direction":"Inbound","originatingEntity":"Human"},{"text":"quick reply text","type":"Structured","direction":"Outbound","id":"message3_id","channel":{"time":null},"content":[{"contentType":"QuickReply","quickReply":{"text":"text_a","payload":"payload_a","action":"action_a"}},{"contentType":"QuickReply","quickReply":{"text":"text_b","payload":"payload_b","action":"action_b"}}],"originatingEntity":"Bot"}],"pageSize":25,"pageNumber":1, "total": 3, "pageCount": 1}"#
                    .utf8
            )
        )
        #expect(page.pageSize == 25 && page.pageNumber == 1 && page.total == 3 && page.pageCount == 1)
        #expect(page.entities.map(\.id) == ["5befde6373a23f32f20b59b4e1cba0e6", "46e7001c24abed05e9bcd1a006eb54b7", "message3_id"])
        #expect(page.entities[0].text == "🤪" && page.entities[0].channel?.time == "2014-04-30T21:09:51.411Z")
        #expect(page.entities[1].channel?.time == nil && page.entities[1].events == [.presence(.join)] && page.entities[1].direction == .inbound)
        #expect(page.entities[2].quickReplies.map(\.text) == ["text_a", "text_b"])
        // messageEntityListResponseWithoutMessages.
        let empty = try GenesysHistoryPage(decoding: Array(#"{"entities":[],"pageSize":0,"pageNumber":1, "total": 0, "pageCount": 0}"#.utf8))
        #expect(empty.entities.isEmpty && empty.total == 0)
    }

    @Test func theDeploymentConfiguration() throws {
        // TestWebMessagingApiResponses.deploymentConfigResponse.
        let config = try GenesysDeploymentConfig(
            decoding: Array(
                ##"{"id":"test_config_id","version":"3","languages":["en-us"],"defaultLanguage":"en-us","apiEndpoint":"https://api.inindca.com","messenger":{"enabled":true,"apps":{"conversations":{"messagingEndpoint":"wss://webmessaging.inindca.com","conversationDisconnect":{"enabled":true,"type":"ReadOnly"},"conversationClear":{"enabled":true}}},"styles":{"primaryColor":"#ff0000"},"launcherButton":{"visibility":"On"},"fileUpload":{"modes":[{"fileTypes":["image/png","image/jpeg","image/gif"],"maxFileSizeKB":10000}]}},"journeyEvents":{"enabled":true},"status":"Active","auth":{"enabled":true,"allowSessionUpgrade":true}}"##
                    .utf8
            )
        )
        #expect(config.id == "test_config_id" && config.active && config.messengerEnabled)
        #expect(config.conversations.messagingEndpoint == "wss://webmessaging.inindca.com")
        #expect(config.conversations.conversationDisconnectEnabled && config.conversations.conversationDisconnectType == .readOnly)
        #expect(config.conversations.conversationClearEnabled && !config.conversations.autoStart && !config.conversations.showUserTypingIndicator)
        #expect(config.fileUpload?.enableAttachments == nil)
        #expect(config.fileUpload?.modes.first?.fileTypes == ["image/png", "image/jpeg", "image/gif"])
        #expect(config.fileUpload?.modes.first?.maxFileSizeKB == 10000)
        #expect(config.authEnabled && config.allowSessionUpgrade)
    }

    @Test func theConversationsMembersAsDeploymentConfigTestHasThem() throws {
        // DeploymentConfigTest.kt's full Conversations, inside a minimal document.
        let config = try GenesysDeploymentConfig(
            decoding: Array(
                #"{"id":"id","status":"Inactive","messenger":{"enabled":true,"apps":{"conversations":{"messagingEndpoint":"messaging_endpoint","showAgentTypingIndicator":true,"showUserTypingIndicator":true,"autoStart":{"enabled":true},"conversationDisconnect":{"enabled":true,"type":"ReadOnly"},"conversationClear":{"enabled":true},"notifications":{"enabled":true,"notificationContentType":"IncludeMessagesContent"},"markdown":{"enabled":true}}},"fileUpload":{"enableAttachments":false,"modes":[{"fileTypes":["png"],"maxFileSizeKB":100}]}},"auth":{"enabled":false}}"#
                    .utf8
            )
        )
        #expect(!config.active && !config.authEnabled)
        #expect(config.conversations.showUserTypingIndicator && config.conversations.autoStart && config.conversations.notificationsEnabled)
        #expect(config.fileUpload?.enableAttachments == false)
    }

    @Test func theFileProfileComesFromTheSessionWhenTheDeploymentSaysEnableAttachments() throws {
        let session = GenesysSessionResponse(
            connected: true,
            allowedFileTypes: ["*/*", "video/3gpp"],
            maxFileSizeKB: 10240,
            blockedExtensions: [".ade", ".adp"]
        )
        // MessagingClientAttachmentTest's listOfFileTypesWithWildcardAndMaxSize with enableAttachments.
        let fromSession = GenesysFileProfile(session: session, fileUpload: .init(enableAttachments: true, modes: []))
        #expect(
            fromSession
                == GenesysFileProfile(
                    enabled: true,
                    allowedFileTypes: ["video/3gpp"],
                    blockedFileTypes: [".ade", ".adp"],
                    maxFileSizeKB: 10240,
                    hasWildcard: true
                )
        )
        #expect(fromSession.refusal(fileName: "a.ADE", mimeType: "application/x", byteCount: 10)?.contains("blocks .ADE") == true)
        #expect(
            fromSession.refusal(fileName: "big.bin", mimeType: "application/octet-stream", byteCount: 10_241_000)?.contains("up to 10240 KB") == true
        )
        #expect(fromSession.refusal(fileName: "ok.bin", mimeType: "application/octet-stream", byteCount: 10_240_999) == nil)
        #expect(fromSession.refusal(fileName: "e.txt", mimeType: "text/plain", byteCount: 0) == "e.txt is empty")
        // Without enableAttachments, the deployment's modes (the SDK's FileUpload.toFileAttachmentProfile).
        let fromModes = GenesysFileProfile(
            session: session,
            fileUpload: .init(enableAttachments: nil, modes: [.init(fileTypes: ["image/png"], maxFileSizeKB: 100)])
        )
        #expect(fromModes == GenesysFileProfile(enabled: true, allowedFileTypes: ["image/png"], maxFileSizeKB: 100))
        #expect(
            fromModes.refusal(fileName: "run.exe", mimeType: "application/x-msdownload", byteCount: 5)
                == "run.exe is of type application/x-msdownload; the deployment takes image/png"
        )
        #expect(fromModes.refusal(fileName: "p.png", mimeType: "image/PNG", byteCount: 5) == nil)
        // No fileUpload at all: nothing is taken.
        #expect(
            GenesysFileProfile(session: session, fileUpload: nil).refusal(fileName: "p.png", mimeType: "image/png", byteCount: 5)
                == "the deployment takes no files"
        )
    }

    @Test func theAddresses() {
        // util/Urls.kt.
        let urls = GenesysEndpoints(domain: "mypurecloud.com", deploymentId: "dep-1", application: "TransportSDK-2.14.0")
        #expect(urls.webSocket == "wss://webmessaging.mypurecloud.com/v1?deploymentId=dep-1&application=TransportSDK-2.14.0")
        #expect(urls.deploymentConfig == "https://api-cdn.mypurecloud.com/webdeployments/v1/deployments/dep-1/config.json")
        #expect(urls.history(pageNumber: 2) == "https://api.mypurecloud.com/api/v2/webmessaging/messages?pageNumber=2&pageSize=25")
        #expect(urls.jwtExchange == "https://api.mypurecloud.com/api/v2/webdeployments/token/oauthcodegrantjwtexchange")
        #expect(urls.jwtRefresh == "https://api.mypurecloud.com/api/v2/webdeployments/token/refresh")
        #expect(urls.jwtRevoke == "https://api.mypurecloud.com/api/v2/webdeployments/token/revoke")
        // A custom endpoint, sanitised as Urls.kt's sanitizeEndpoint does.
        let local = GenesysEndpoints(domain: "x", deploymentId: "d e", application: "a", customEndpoint: "http://127.0.0.1:8080/")
        #expect(local.webSocket == "ws://127.0.0.1:8080/v1?deploymentId=d%20e&application=a")
        #expect(local.deploymentConfig == "http://127.0.0.1:8080/webdeployments/v1/deployments/d%20e/config.json")
        #expect(local.history(pageNumber: 1, pageSize: 100) == "http://127.0.0.1:8080/api/v2/webmessaging/messages?pageNumber=1&pageSize=100")
        #expect(GenesysEndpoints(domain: "x", deploymentId: "d", application: "a", customEndpoint: "").customEndpoint == nil)
    }
}
