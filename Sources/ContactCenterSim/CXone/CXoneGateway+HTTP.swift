import Synchronization

/// The gateway's HTTP side: the chat REST endpoints under the bases of ``CXoneGatewayEndpoints`` (chat
/// `http://HOST:PORT/chat`, host `http://HOST:PORT`), EventInS3 bodies, and `/control/cxone/…`.
extension CXoneGateway {
    /// The answer to a request for one of the gateway's paths; nil for any other path.
    func route(_ request: HTTPRouteRequest) -> HTTPReply? {
        if request.path == Self.socketPath {
            // Only requests that were not upgraded get here: refused while down, or not upgrade requests.
            if self.isDown { return Self.downReply }
            if self.settings.securedSessions, self.transactionCustomer(request.query["transactionToken"]) == nil {
                return SimCXoneREST.serviceError(
                    "Unauthorized",
                    "the channel has secured sessions: the socket URL needs a valid transactionToken from POST \(Self.transactionTokenPath)"
                ).reply(status: 401)
            }
            return .error(426, "\(Self.socketPath) is the CXone chat WebSocket: send a WebSocket upgrade request")
        }
        if request.path == Self.transactionTokenPath {
            guard request.method == "POST" else { return .error(405, "\(request.method) is not allowed on \(request.path)") }
            return self.transactionTokenReply(request)
        }
        let segments = request.segments
        switch (request.method, segments.count, segments.first ?? "") {
        case ("GET", 6, "chat") where segments[1] == "1.0" && segments[2] == "brand" && segments[4] == "channel":
            return self.channelReply(brand: segments[3], channel: segments[5], endpoint: "configuration") {
                self.settings.channelConfiguration.reply()
            }
        case ("GET", 7, "chat") where segments[1] == "1.0" && segments[2] == "brand" && segments[4] == "channel" && segments[6] == "availability":
            return self.channelReply(brand: segments[3], channel: segments[5], endpoint: "availability") {
                self.state.withLock { $0.availabilityRequests += 1 }
                return SimCXoneREST.availability(isOnline: self.isOnline).reply()
            }
        case ("POST", 7, "chat") where segments[1] == "1.0" && segments[2] == "brand" && segments[4] == "channel" && segments[6] == "attachment":
            return self.channelReply(brand: segments[3], channel: segments[5], endpoint: "attachment") { self.uploadReply(request.body) }
        case (_, 6, "web-analytics") where segments[1] == "1.0" && segments[2] == "tenants" && segments[4] == "visitors",
            (_, 7, "web-analytics") where segments[1] == "1.0" && segments[2] == "tenants" && segments[4] == "visitors" && segments[6] == "events":
            return self.analyticsReply(request, brand: segments[3], visitor: segments[5], isEvent: segments.count == 7)
        case ("GET", 2, "files"):
            if self.hasFault(.stallingDownloads) { return .stall }
            return self.fileReply(id: segments[1], signature: request.query["signature"])
        case ("GET", 2, "s3"):
            if self.hasFault(.failingEventInS3) { return .error(500, "EventInS3 storage is failing (injected fault)") }
            guard let body = self.s3Object(segments[1]) else { return .error(404, "no stored event \(segments[1])") }
            return .encoded(body)
        case (_, _, "control") where segments.count >= 3 && segments[1] == "cxone":
            return self.controlReply(request, action: segments[2...].joined(separator: "/"))
        default:
            return nil
        }
    }

    /// What the socket path and the REST endpoints answer while ``CXoneGatewayFault/down`` is on.
    static var downReply: HTTPReply {
        SimCXoneREST.serviceError(
            "ServiceUnavailable",
            "the CXone gateway is down (injected fault); POST /control/cxone/clear-faults brings it back"
        ).reply(status: 503)
    }

    /// The 500 an endpoint with a ``CXoneGatewayFault/restError(endpoint:)`` fault answers.
    private func restFault(_ endpoint: String) -> HTTPReply? {
        let fault = self.state.withLock { state in
            state.faults.lazy.compactMap { fault -> (code: String, status: Int)? in
                guard case .restError(endpoint, let code, let status) = fault else { return nil }
                return (code, status)
            }.first
        }
        guard let fault else { return nil }
        return SimCXoneREST.serviceError(fault.code, "the \(endpoint) endpoint is failing (injected fault)").reply(status: fault.status)
    }

    private func channelReply(brand: String, channel: String, endpoint: String, body: () -> HTTPReply) -> HTTPReply {
        if self.isDown { return Self.downReply }
        if let fault = self.restFault(endpoint) { return fault }
        guard Int(brand) == self.settings.brandId, channel == self.settings.channelId else {
            return SimCXoneREST.serviceError("ChannelNotFound", "no channel \(channel) in brand \(brand)").reply(status: 404)
        }
        return body()
    }

    private func analyticsReply(_ request: HTTPRouteRequest, brand: String, visitor: String, isEvent: Bool) -> HTTPReply {
        if self.isDown { return Self.downReply }
        if let fault = self.restFault(isEvent ? "events" : "visitor") { return fault }
        guard Int(brand) == self.settings.brandId else {
            return SimCXoneREST.serviceError("TenantNotFound", "no brand \(brand)").reply(status: 404)
        }
        switch (request.method, isEvent) {
        case ("PUT", false):
            do {
                let body = try CXoneGatewayVisitor.parse(request.body)
                self.state.withLock { state in
                    state.visitors[SimCXoneID.key(visitor)] = body
                    state.visitorWrites += 1
                }
            } catch {
                return SimCXoneREST.serviceError("BadRequest", "\(error)").reply(status: 400)
            }
        case ("POST", true):
            do {
                let event = try CXoneGatewayAnalyticsEvent.parse(request.body)
                self.state.withLock { $0.analyticsEvents.append(event) }
            } catch {
                return SimCXoneREST.serviceError("BadRequest", "\(error)").reply(status: 400)
            }
        default:
            return .error(405, "\(request.method) is not allowed on \(request.path)")
        }
        return HTTPReply(status: isEvent ? 202 : 200, body: "{}")
    }

    private func controlReply(_ request: HTTPRouteRequest, action: String) -> HTTPReply {
        switch (request.method, action) {
        case ("POST", "agent"):
            guard var text = request.query["text"], request.query["thread"] != nil || request.query["customer"] != nil else {
                return .error(
                    400,
                    "missing parameters: /control/cxone/agent?thread=ID&text=TEXT (or customer=ID to open a thread)[&size=BYTES][&at=UNIX-SECONDS]"
                )
            }
            if let size = request.query["size"].flatMap(Int.init), size > text.utf8.count {
                // Padded to `size` bytes: an event over the EventInS3 threshold.
                text += String(repeating: ".", count: size - text.utf8.count)
            }
            do {
                let message: CXoneGatewayMessage
                if let thread = request.query["thread"], !thread.isEmpty {
                    message = try self.agentSays(threadID: thread, text: text, at: request.query["at"].flatMap(Double.init))
                } else {
                    message = try self.agentOpensThread(
                        customerID: request.query["customer"] ?? "",
                        text: text,
                        at: request.query["at"].flatMap(Double.init)
                    )
                }
                return .json(["ok": true, "message_id": message.id, "thread_id": message.threadId])
            } catch {
                return .error(404, "\(error)")
            }
        case ("POST", "rich"):
            // A rich message or the inactivity popup from the agent (CXoneGateway+Rich).
            guard let thread = request.query["thread"], let kind = request.query["kind"] else {
                return .error(400, "missing parameters: /control/cxone/rich?thread=ID&kind=\(Self.richKinds.joined(separator: "|"))")
            }
            do {
                let message = try self.agentOffers(threadID: thread, kind: kind)
                return .json(["ok": true, "message_id": message.id, "thread_id": message.threadId])
            } catch {
                return .error(404, "\(error)")
            }
        case ("POST", "file"):
            // The agent sends a file: the body, under `name` and `type`, with an optional `text`.
            guard let thread = request.query["thread"], let name = request.query["name"] else {
                return .error(400, "missing parameters: /control/cxone/file?thread=ID&name=NAME[&type=MIME][&text=TEXT] with the file as the body")
            }
            do {
                let message = try self.agentSendsFile(
                    threadID: thread,
                    name: name,
                    mimeType: request.query["type"] ?? "application/octet-stream",
                    bytes: request.body,
                    text: request.query["text"] ?? ""
                )
                return .json(["ok": true, "message_id": message.id, "thread_id": message.threadId])
            } catch {
                return .error(404, "\(error)")
            }
        case ("POST", "agent-read"):
            // The agent reads the thread: MessageSeenChanged for the customer's newest unread message.
            guard let thread = request.query["thread"] else { return .error(400, "missing parameter: /control/cxone/agent-read?thread=ID") }
            do {
                let message = try self.agentReads(threadID: thread)
                return .json(["ok": true, "message_id": message?.id ?? ""])
            } catch {
                return .error(404, "\(error)")
            }
        case ("POST", "page-size"):
            // How many messages RecoverThread and LoadMoreMessages give (0: all).
            guard let size = request.query["messages"].flatMap(Int.init), size >= 0 else {
                return .error(400, "missing parameter: /control/cxone/page-size?messages=N (0: all)")
            }
            self.state.withLock { $0.pageSize = size == 0 ? nil : size }
            return .json(["ok": true])
        case ("POST", "push"):
            // The body, as it is, as one text frame to every client socket (for bad-input tests).
            let count = self.pushRaw(request.body)
            return .json(["sent": count])
        case ("POST", "s3"):
            // The body parked as an EventInS3 object; the answer names its URL (for notices pushed by hand).
            let id = SimCXoneID.random()
            self.state.withLock { $0.s3Objects[id] = request.body }
            return .json(["url": "\(self.httpBase())/s3/\(id)"])
        case ("POST", "availability"):
            let online = request.query["online"] ?? "1"
            guard online == "1" || online == "0" else { return .error(400, "online must be 1 or 0") }
            self.setOnline(online == "1")
            return .json(["online": online == "1"])
        case ("POST", "fault"):
            return self.faultReply(request)
        case ("POST", "clear-faults"):
            self.clearFaults()
            return .json(["ok": true])
        case ("POST", "drop"):
            let count = self.connectionCount
            self.dropConnections()
            return .json(["dropped": count])
        case ("GET", "threads"):
            return .json(["threads": self.threads.map(Self.json)])
        case ("GET", "status"):
            return .json([
                "connections": self.connectionCount,
                "online": self.isOnline,
                "down": self.isDown,
                "visitors": self.visitors.count,
                "visitor_writes": self.state.withLock { $0.visitorWrites },
                "availability_requests": self.state.withLock { $0.availabilityRequests },
                "analytics_events": self.analyticsEvents.count,
                "analytics_types": self.analyticsEvents.map(\.type),
                "received": self.receivedEventTypes,
                "customers": self.customerIDs,
                "contact_fields": self.contactFields,
                "file_downloads": self.state.withLock { $0.fileDownloads },
                "uploads": self.uploads.map { ["name": $0.name, "type": $0.mimeType, "size": $0.bytes.count] as [String: any Sendable] },
                "transaction_tokens_issued": self.transactionTokensIssued,
                "transcripts": self.transcripts.map {
                    ["thread": $0.threadId, "contact": $0.contactId, "to": $0.recipients, "messages": $0.messages] as [String: any Sendable]
                },
            ])
        default:
            return .error(404, "no endpoint \(request.method) \(request.path); see attendant-sim --help")
        }
    }

    private func faultReply(_ request: HTTPRouteRequest) -> HTTPReply {
        let event = request.query["event"] ?? ""
        let fault: CXoneGatewayFault
        switch request.query["kind"] ?? "" {
        case "server-error" where !event.isEmpty: fault = .serverError(eventType: event)
        case "operation-error" where !event.isEmpty: fault = .operationError(eventType: event, errorCode: request.query["code"] ?? "InternalError")
        case "drop-next": fault = .dropOnNextMessage
        case "missing-pongs": fault = .missingPongs
        case "s3-failure": fault = .failingEventInS3
        case "stall-downloads": fault = .stallingDownloads
        case "down": fault = .down
        case "rest-error" where ["configuration", "availability", "visitor", "events"].contains(request.query["endpoint"] ?? ""):
            fault = .restError(
                endpoint: request.query["endpoint"] ?? "",
                errorCode: request.query["code"] ?? "InternalServerError",
                status: request.query["status"].flatMap(Int.init) ?? 500
            )
        case let other:
            return .error(
                400,
                "bad fault '\(other)': use server-error&event=TYPE, operation-error&event=TYPE[&code=CODE], drop-next, missing-pongs, s3-failure, stall-downloads, down or rest-error&endpoint=configuration|availability|visitor|events[&code=CODE][&status=N]"
            )
        }
        self.inject(fault)
        return .json(["ok": true])
    }

    static func json(_ thread: CXoneGatewayThread) -> [String: any Sendable] {
        let messages: [[String: any Sendable]] = thread.messages.map { message in
            var object: [String: any Sendable] = [
                "id": message.id,
                "direction": message.direction.rawValue,
                "text": message.text ?? "",
            ]
            if let agent = message.agent?.displayName { object["agent"] = agent }
            if message.contentType != "TEXT" { object["type"] = message.contentType }
            if let postback = message.content["postback"]?.string { object["postback"] = postback }
            if message.content["parameters"]?["isInactivityPopupAnswer"] == .bool(true) { object["inactivity_popup_answer"] = true }
            if !message.attachments.isEmpty {
                object["attachments"] = message.attachments.map { file -> [String: any Sendable] in
                    ["name": file["fileName"]?.string ?? "", "type": file["mimeType"]?.string ?? "", "url": file["url"]?.string ?? ""]
                }
            }
            return object
        }
        return [
            "id": thread.id,
            "customer": thread.customerId,
            "contact": thread.contact.id,
            "status": thread.contact.status,
            "messages": messages,
        ]
    }
}
