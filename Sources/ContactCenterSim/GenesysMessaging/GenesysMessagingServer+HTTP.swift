import Foundation
import Synchronization

/// The service's HTTP side, under the one base of ``GenesysMessagingEndpoints``: the deployment
/// configuration (as api-cdn.{domain}), the history API and the token endpoints (as api.{domain}),
/// presigned uploads and downloads, and `/control/genesys/…`.
extension GenesysMessagingServer {
    static let historyPath = "/api/v2/webmessaging/messages"
    static let tokenPath = "/api/v2/webdeployments/token/"

    /// The answer to a request for one of the service's paths; nil for any other path.
    func route(_ request: HTTPRouteRequest) -> HTTPReply? {
        if request.path == Self.socketPath {
            // Only requests that were not upgraded get here: refused while down, or not upgrade requests.
            if self.isDown { return Self.downReply }
            return .error(426, "\(Self.socketPath) is the web messaging WebSocket: send a WebSocket upgrade request")
        }
        let segments = request.segments
        if request.path == Self.historyPath {
            guard request.method == "GET" else { return .error(405, "\(request.method) is not allowed on \(request.path)") }
            return self.isDown ? Self.downReply : self.historyReply(request)
        }
        if request.path.hasPrefix(Self.tokenPath) {
            if self.isDown { return Self.downReply }
            switch request.path.dropFirst(Self.tokenPath.count) {
            case "oauthcodegrantjwtexchange": return self.codeExchangeReply(request)
            case "refresh": return self.refreshReply(request)
            case "revoke": return self.revokeReply(request)
            default: return nil
            }
        }
        switch (request.method, segments.count, segments.first ?? "") {
        case ("GET", 5, "webdeployments") where segments[1] == "v1" && segments[2] == "deployments" && segments[4] == "config.json":
            if self.isDown { return Self.downReply }
            self.state.withLock { $0.configRequests += 1 }
            guard segments[3] == self.settings.deploymentId else {
                return Self.apiError(404, "not.found", "no deployment \(segments[3])")
            }
            return self.deploymentConfiguration.reply()
        case ("PUT", 2, "uploads"):
            return self.uploadReply(request, id: segments[1])
        case ("GET", 2, "downloads"):
            return self.downloadReply(request, id: segments[1])
        case (_, _, "control") where segments.count >= 3 && segments[1] == "genesys":
            return self.controlReply(request, action: segments[2...].joined(separator: "/"))
        default:
            return nil
        }
    }

    static var downReply: HTTPReply { apiError(503, "service.unavailable", "the web messaging service is down (injected fault)") }

    /// `config.json` with the fields the SDK's `DeploymentConfig.kt` requires, shaped as its fixture
    /// (`TestWebMessagingApiResponses.deploymentConfigResponse`): `messenger.apps.conversations`
    /// (messagingEndpoint, typing indicators, conversationDisconnect, conversationClear) and
    /// `messenger.fileUpload.modes` (`[{fileTypes, maxFileSizeKB}]`).
    var deploymentConfiguration: GMSJSON {
        let base = self.httpBase()
        return [
            "id": .string(self.settings.deploymentId),
            "version": "1",
            "languages": ["en-us"],
            "defaultLanguage": "en-us",
            "apiEndpoint": .string(base),
            "messenger": [
                "enabled": true,
                "apps": [
                    "conversations": [
                        "messagingEndpoint": .string(base.replacingOccurrences(of: "http://", with: "ws://")),
                        "showAgentTypingIndicator": true,
                        "showUserTypingIndicator": true,
                        "autoStart": ["enabled": false],
                        "conversationDisconnect": ["enabled": true, "type": .string(self.settings.disconnectReadOnly ? "ReadOnly" : "Send")],
                        "conversationClear": ["enabled": .bool(self.settings.conversationClear)],
                        "markdown": ["enabled": false],
                    ]
                ],
                "styles": ["primaryColor": "#ff4f1f"],
                "launcherButton": ["visibility": "On"],
                "fileUpload": [
                    "enableAttachments": true,
                    "modes": [
                        ["fileTypes": .array(self.settings.fileTypes.map { .string($0) }), "maxFileSizeKB": .int(self.settings.maxFileSizeKB)]
                    ],
                ],
            ],
            "journeyEvents": ["enabled": false],
            "status": "Active",
            "auth": ["enabled": .bool(self.settings.authEnabled), "allowSessionUpgrade": .bool(self.settings.authEnabled)],
        ]
    }

    /// `GET /api/v2/webmessaging/messages?pageNumber=N&pageSize=M` with `Authorization: bearer JWT`
    /// (`WebMessagingApi.getMessages`; a guest's JWT comes from getJwt, an authenticated user's from the
    /// code exchange). `MessageEntityList.kt`: `{entities, pageSize, pageNumber, total, pageCount}`; page 1
    /// holds the newest messages, newest first (`MessageStore.updateMessageHistory` reverses each page).
    func historyReply(_ request: HTTPRouteRequest) -> HTTPReply {
        self.state.withLock { $0.historyRequests += 1 }
        guard let jwt = Self.bearer(request), let issued = self.validJWT(jwt) else {
            return Self.apiError(401, "bad.credentials", "Invalid login credentials.")
        }
        let pageSize = request.query["pageSize"].flatMap(Int.init) ?? 25
        let pageNumber = request.query["pageNumber"].flatMap(Int.init) ?? 1
        guard (1...100).contains(pageSize), pageNumber >= 1 else {
            return Self.apiError(400, "bad.request", "pageSize is 1 to 100 and pageNumber 1 or more")
        }
        let messages: [SimGenesysMessage] = self.state.withLock { state in
            let token = issued.token ?? state.sessionOrder.last { state.sessions[$0]?.subject == issued.subject && issued.subject != nil }
            return token.flatMap { state.sessions[$0]?.messages } ?? []
        }
        let newestFirst = Array(messages.reversed())
        let start = min((pageNumber - 1) * pageSize, newestFirst.count)
        let page = newestFirst[start..<min(start + pageSize, newestFirst.count)]
        let body: GMSJSON = [
            "entities": .array(page.map(\.json)),
            "pageSize": .int(pageSize),
            "pageNumber": .int(pageNumber),
            "total": .int(newestFirst.count),
            "pageCount": .int((newestFirst.count + pageSize - 1) / pageSize),
        ]
        return body.reply()
    }

    private func controlReply(_ request: HTTPRouteRequest, action: String) -> HTTPReply {
        let query = request.query
        let session = query["session"]
        do throws(SimulatorError) {
            switch (request.method, action) {
            case ("POST", "agent"):
                guard let text = query["text"] else {
                    return .error(400, "missing parameter: /control/genesys/agent?text=TEXT[&session=ID][&from=Human|Bot]")
                }
                return Self.sent(try self.agentSays(session: session, text: text, originatingEntity: query["from"] ?? "Human"))
            case ("POST", "quick-replies"):
                guard let text = query["text"], let options = query["options"], !options.isEmpty else {
                    return .error(
                        400,
                        "missing parameters: /control/genesys/quick-replies?text=TEXT&options=Yes,No=no[&session=ID] (TEXT=PAYLOAD, or TEXT as both)"
                    )
                }
                return Self.sent(try self.agentOffersQuickReplies(session: session, text: text, options: Self.pairs(options)))
            case ("POST", "card"):
                guard let title = query["title"], let postbacks = query["postbacks"] else {
                    return .error(
                        400,
                        "missing parameters: /control/genesys/card?title=T&postbacks=Book=book,…[&description=D][&image=URL][&links=Site=https://…][&text=TEXT][&session=ID]"
                    )
                }
                return Self.sent(
                    try self.agentSendsCard(
                        session: session,
                        text: query["text"] ?? title,
                        title: title,
                        description: query["description"] ?? "",
                        image: query["image"],
                        postbacks: Self.pairs(postbacks),
                        links: Self.pairs(query["links"] ?? "").map { (text: $0.text, url: $0.payload) }
                    )
                )
            case ("POST", "file"):
                guard let name = query["name"] else {
                    return .error(
                        400,
                        "missing parameters: /control/genesys/file?name=NAME[&type=MIME][&text=TEXT][&age=SECONDS][&session=ID] with the file as the body"
                    )
                }
                // `age`: the file's download URL was signed that long ago (an old message's URL may have expired).
                let message = try self.agentSendsFile(
                    session: session,
                    name: name,
                    mimeType: query["type"] ?? "application/octet-stream",
                    bytes: request.body,
                    text: query["text"] ?? "",
                    signedSecondsAgo: query["age"].flatMap(Int.init) ?? 0
                )
                return Self.sent(message)
            case ("POST", "typing"):
                try self.agentTyping(session: session)
                return .json(["ok": true])
            case ("POST", "join"):
                return Self.sent(try self.agentJoins(session: session))
            case ("POST", "disconnect"):
                return Self.sent(try self.agentDisconnects(session: session))
            case ("POST", "expiry"):
                guard let seconds = query["in"].flatMap(Int.init) else {
                    return .error(400, "missing parameter: /control/genesys/expiry?in=SECONDS[&session=ID]")
                }
                try self.setExpiration(session: session, inSeconds: seconds)
                return .json(["ok": true, "expiration_date": self.nowSeconds + seconds])
            case ("POST", "expire"):
                try self.expireSession(session: session)
                return .json(["ok": true])
            case ("POST", "oauth-code"):
                guard let subject = query["subject"], !subject.isEmpty else {
                    return .error(400, "missing parameter: /control/genesys/oauth-code?subject=USER")
                }
                return .json(["code": self.makeOAuthCode(subject: subject)])
            case ("POST", "push"):
                return .json(["sent": self.pushRaw(request.body)])
            case ("POST", "fault"):
                return self.faultReply(query)
            case ("POST", "clear-faults"):
                self.clearFaults()
                return .json(["ok": true])
            case ("POST", "drop"):
                let count = self.connectionCount
                self.dropConnections()
                return .json(["dropped": count])
            case ("GET", "messages"):
                return GMSJSON.object(["messages": .array(try self.messages(session: session).map(\.json))]).reply()
            case ("GET", "status"):
                return self.status.reply()
            default:
                return .error(404, "no endpoint \(request.method) \(request.path); see attendant-sim --help")
            }
        } catch {
            return .error(404, error.message)
        }
    }

    private func faultReply(_ query: [String: String]) -> HTTPReply {
        let count = query["count"].flatMap(Int.init) ?? 1
        guard count > 0 else { return .error(400, "count must be a positive whole number") }
        switch query["kind"] ?? "" {
        case "down": self.inject(.down)
        case "refuse-configure": self.inject(.refuseConfigure(code: query["code"].flatMap(Int.init) ?? 5000, remaining: count))
        case "rate-limit": self.inject(.rateLimit(retryAfter: query["retry-after"].flatMap(Int.init) ?? 3, remaining: count))
        case "upload-failure": self.inject(.uploadFailure(remaining: count))
        case "malformed":
            // A StructuredMessage frame cut short: not JSON.
            return .json(["sent": self.pushRaw(Array(#"{"type":"message","class":"StructuredMessage","code":200,"body":{"id":"#.utf8))])
        case "wrong-shape":
            // JSON, but a StructuredMessage without the id, type and direction the SDK requires.
            return .json(["sent": self.pushRaw(Array(#"{"type":"message","class":"StructuredMessage","code":200,"body":{"text":42}}"#.utf8))])
        case let other:
            return .error(
                400,
                "bad fault '\(other)': use down, refuse-configure[&code=N][&count=N], rate-limit[&retry-after=S][&count=N], upload-failure[&count=N], malformed or wrong-shape"
            )
        }
        return .json(["ok": true])
    }

    private var status: GMSJSON {
        let summaries: [GMSJSON] = self.sessions.map { summary in
            var object: GMSJSON = [
                "id": .string(summary.id), "read_only": .bool(summary.readOnly), "expired": .bool(summary.expired),
                "expiration_date": .int(summary.expirationDate), "messages": .int(summary.messages),
                "conversations": .int(summary.conversations), "connections": .int(summary.connections),
            ]
            if let subject = summary.subject { object["subject"] = .string(subject) }
            return object
        }
        return self.state.withLock { state in
            [
                "connections": .int(state.connections.count),
                "down": .bool(state.faults.contains(.down)),
                "sessions": .array(summaries),
                "messages_received": .int(state.messagesReceived),
                "button_responses": .array(state.buttonResponses),
                "echoes": .int(state.echoes),
                "received": .array(state.actions.map { .string($0) }),
                "config_requests": .int(state.configRequests),
                "history_requests": .int(state.historyRequests),
                "code_exchanges": .int(state.codeExchanges),
                "refreshes": .int(state.refreshes),
                "revocations": .int(state.revocations),
                "uploads": .array(
                    state.uploads.values.sorted { $0.fileName < $1.fileName }.compactMap { upload in
                        upload.bytes.map { ["name": .string(upload.fileName), "type": .string(upload.fileType), "size": .int($0.count)] }
                    }
                ),
            ]
        }
    }

    private static func sent(_ id: String) -> HTTPReply { .json(["ok": true, "message_id": id]) }

    /// `A=a,B` → [(A, a), (B, B)].
    static func pairs(_ text: String) -> [(text: String, payload: String)] {
        text.split(separator: ",").map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count == 2 ? parts[1] : parts[0])
        }
    }
}
