import Foundation
import Synchronization

/// The guest WebSocket's requests, answered with the shapes of the SDK's `shyrka/receive/*` classes.
extension GenesysMessagingServer {
    /// Handles one text frame from a client socket.
    func receive(_ bytes: [UInt8], from connection: GenesysMessagingConnection) {
        let frame: SimGenesysClientFrame
        do {
            frame = try SimGenesysClientFrame.parse(bytes)
        } catch {
            connection.send(.error(error, tracingId: GMSJSON.parse(bytes)?["tracingId"]?.string))
            return
        }
        self.state.withLock { $0.actions.append(frame.action) }
        do {
            try self.handle(frame, on: connection)
        } catch {
            connection.send(.error(error, tracingId: frame.tracingId))
        }
    }

    private func handle(_ frame: SimGenesysClientFrame, on connection: GenesysMessagingConnection) throws(SimGenesysWireError) {
        switch frame.request {
        case .configureSession(let deploymentId, let startNew):
            try self.configure(frame, deploymentId: deploymentId, startNew: startNew, subject: nil, on: connection)
        case .configureAuthenticatedSession(let deploymentId, let startNew, let jwt):
            guard self.settings.authEnabled else { throw SimGenesysWireError(403, "Authenticated sessions are not enabled for this deployment") }
            // A JWT that is unknown, revoked or expired: 401, on which the SDK refreshes the JWT and configures again
            // (MessagingClientImpl.handleConfigureSessionErrorResponse, code.isUnauthorized()).
            guard let subject = self.subject(ofJWT: jwt) else { throw SimGenesysWireError(401, "User is unauthorized") }
            try self.configure(frame, deploymentId: deploymentId, startNew: startNew, subject: subject, on: connection)
        case .echo(let text):
            self.echo(frame, text: text, on: connection)
        case .onMessage(let message):
            try self.onMessage(message, frame, on: connection)
        case .onAttachment(let id, let name, let type, let size, let errorsAsJson):
            try self.presign(frame, attachmentId: id, fileName: name, fileType: type, fileSize: size, errorsAsJson: errorsAsJson, on: connection)
        case .getAttachment(let id):
            try self.refreshAttachment(frame, attachmentId: id, on: connection)
        case .deleteAttachment(let id):
            try self.deleteAttachment(frame, attachmentId: id, on: connection)
        case .getJwt:
            let session = try self.session(for: frame, on: connection)
            let (jwt, expiresAt) = self.issueJWT(subject: session.subject, token: session.token)
            connection.send(.response("JwtResponse", ["jwt": .string(jwt), "exp": .int(expiresAt)], tracingId: frame.tracingId))
        case .closeSession(let all):
            try self.closeSession(frame, closeAllConnections: all, on: connection)
        }
    }

    // MARK: Sessions

    private func configure(
        _ frame: SimGenesysClientFrame,
        deploymentId: String,
        startNew: Bool,
        subject: String?,
        on connection: GenesysMessagingConnection
    ) throws(SimGenesysWireError) {
        if let code = self.takeRefusal() { throw SimGenesysWireError(code, "Request failed.") }
        // 403 is how the SDK reads "check that your deploymentId … are correct" (ErrorCode.kt, CorrectiveAction.Forbidden).
        guard deploymentId == self.settings.deploymentId else { throw SimGenesysWireError(403, "Deployment \(deploymentId) was not found") }
        let now = self.nowSeconds
        let outcome: Result<(session: Session, newSession: Bool), SimGenesysWireError> = self.state.withLock { state in
            let duration = self.settings.sessionDurationSeconds
            if var session = state.sessions[frame.token], !session.expired, now < session.expirationDate {
                if session.subject != nil, subject == nil {
                    return .failure(SimGenesysWireError(4017, "Cannot downgrade an authenticated session to an unauthenticated one"))
                }
                if let subject { session.subject = subject }
                var newSession = false
                if startNew, session.readOnly {
                    // A new chat after ConversationDisconnect: a new conversation in the same session.
                    session.messages = []
                    session.readOnly = false
                    session.conversations += 1
                    session.expirationDate = now + duration
                    newSession = true
                }
                state.sessions[frame.token] = session
                return .success((session, newSession))
            }
            // A token the service does not know (or whose session expired) starts a new session.
            let session = Session(id: "session-\(state.nextSession)", token: frame.token, subject: subject, expirationDate: now + duration)
            state.nextSession += 1
            if state.sessions.updateValue(session, forKey: frame.token) == nil { state.sessionOrder.append(frame.token) }
            return .success((session, true))
        }
        let (session, newSession) = try outcome.get()
        connection.token = frame.token
        connection.send(
            .response("SessionResponse", self.sessionResponse(session, connected: true, newSession: newSession), tracingId: frame.tracingId)
        )
        if newSession, let greeting = self.settings.greeting {
            self.agentJoinsAndGreets(token: session.token, greeting: greeting)
        }
    }

    /// `SessionResponse.kt`: connected, newSession, readOnly, maxCustomDataBytes, allowedMedia.inbound
    /// (fileTypes `[{"type"}]`, maxFileSizeKB), blockedExtensions, clearedExistingSession, durationSeconds,
    /// expirationDate.
    func sessionResponse(_ session: Session, connected: Bool, newSession: Bool, readOnly: Bool? = nil) -> GMSJSON {
        [
            "connected": .bool(connected),
            "newSession": .bool(newSession),
            "readOnly": .bool(readOnly ?? session.readOnly),
            "maxCustomDataBytes": .int(self.settings.maxCustomDataBytes),
            "allowedMedia": [
                "inbound": [
                    "fileTypes": .array(self.settings.fileTypes.map { ["type": .string($0)] }),
                    "maxFileSizeKB": .int(self.settings.maxFileSizeKB),
                ]
            ],
            "blockedExtensions": .array(self.settings.blockedExtensions.map { .string($0) }),
            "clearedExistingSession": false,
            "durationSeconds": .int(self.settings.sessionDurationSeconds),
            "expirationDate": .int(session.expirationDate),
        ]
    }

    /// The session a request names: it must be the one configured on this socket, and alive.
    func session(for frame: SimGenesysClientFrame, on connection: GenesysMessagingConnection) throws(SimGenesysWireError) -> Session {
        guard connection.token == frame.token, let session = self.state.withLock({ $0.sessions[frame.token] }) else {
            throw SimGenesysWireError(4007, "Session not found: configure a session on this connection first")
        }
        if session.expired || self.nowSeconds >= session.expirationDate {
            self.state.withLock { $0.sessions[frame.token]?.expired = true }
            throw SimGenesysWireError(4006, "Session has expired")
        }
        return session
    }

    /// `CloseSessionRequest.kt`: "will trigger closure of all opened connections on all other devices that
    /// share the same session token, by sending them a ConnectionClosedEvent. After successful closure an
    /// event SessionResponse with connected=false will be received".
    private func closeSession(
        _ frame: SimGenesysClientFrame,
        closeAllConnections: Bool,
        on connection: GenesysMessagingConnection
    ) throws(SimGenesysWireError) {
        let session = try self.session(for: frame, on: connection)
        if closeAllConnections {
            for other in self.connections(of: frame.token) where other.id != connection.id {
                other.send(.message("ConnectionClosedEvent", [:]))
                other.token = nil
            }
        }
        // readOnly stays as it is: the SDK configures a new chat when it reads readOnly and not connected.
        connection.send(.response("SessionResponse", self.sessionResponse(session, connected: false, newSession: false), tracingId: frame.tracingId))
    }

    /// `echo`: the request's message comes back as an Inbound Text StructuredMessage response with the
    /// request's tracingId (`Response.healthCheckResponse`), with the session's `durationSeconds` and
    /// `expirationDate` in its metadata (`Response.healthCheckResponseWithSessionDuration`; the SDK's
    /// SessionDurationHandler reads them). An echo is not activity: it does not move the expiration.
    private func echo(_ frame: SimGenesysClientFrame, text: String, on connection: GenesysMessagingConnection) {
        self.state.withLock { $0.echoes += 1 }
        var message = SimGenesysMessage(
            id: SimGenesysTime.id(),
            type: "Text",
            text: text,
            direction: "Inbound",
            time: Date(timeIntervalSince1970: self.now())
        )
        if connection.token == frame.token, let session = self.state.withLock({ $0.sessions[frame.token] }) {
            message.metadata = ["durationSeconds": String(self.settings.sessionDurationSeconds), "expirationDate": String(session.expirationDate)]
        }
        connection.send(.response("StructuredMessage", message.json, tracingId: frame.tracingId))
    }

    // MARK: Messages

    private func onMessage(
        _ message: SimGenesysInboundMessage,
        _ frame: SimGenesysClientFrame,
        on connection: GenesysMessagingConnection
    ) throws(SimGenesysWireError) {
        let session = try self.session(for: frame, on: connection)
        if let retryAfter = self.takeRateLimit() {
            // TooManyRequestsErrorMessage.kt; the fixture: code 429, body {retryAfter: 3, errorCode: 4029,
            // errorMessage: "Message rate too high for this session"}.
            let body: GMSJSON = ["retryAfter": .int(retryAfter), "errorCode": 4029, "errorMessage": "Message rate too high for this session"]
            connection.send(.response("TooManyRequestsErrorMessage", body, code: 429, tracingId: frame.tracingId))
            return
        }
        if session.readOnly { throw SimGenesysWireError(403, "The conversation is read-only: start a new chat") }
        let attributesSize = GMSJSON.object(message.customAttributes).encoded.count
        if !message.customAttributes.isEmpty, attributesSize > self.settings.maxCustomDataBytes {
            throw SimGenesysWireError(4013, "Custom Attributes in channel metadata is larger than \(self.settings.maxCustomDataBytes) bytes")
        }
        let time = Date(timeIntervalSince1970: self.now())
        if message.type == "Event" {
            try self.onEvents(message, frame, session: session, time: time)
            return
        }
        if message.text.count > self.settings.maxTextLength {
            throw SimGenesysWireError(4011, "Message text is longer than \(self.settings.maxTextLength) characters")
        }
        var content: [GMSJSON] = []
        for item in message.content {
            switch item["contentType"]?.string {
            case "Attachment":
                guard let id = item["attachment"]?["id"]?.string, let upload = self.state.withLock({ $0.uploads[id] }), upload.token == frame.token,
                    let bytes = upload.bytes, !upload.deleted
                else {
                    throw SimGenesysWireError(4010, "Attachment \(item["attachment"]?["id"]?.string ?? "?") was not successfully uploaded")
                }
                content.append(
                    self.attachmentContent(id: id, name: upload.fileName, type: upload.fileType, size: bytes.count, url: self.downloadURL(id))
                )
            case "ButtonResponse":
                guard let response = item["buttonResponse"], response["payload"]?.string != nil else {
                    throw SimGenesysWireError(4020, "A ButtonResponse needs buttonResponse.payload")
                }
                content.append(item)
            default:
                content.append(item)
            }
        }
        if message.text.isEmpty, content.isEmpty { throw SimGenesysWireError(4020, "The message has neither text nor content") }
        let stored = SimGenesysMessage(
            id: SimGenesysTime.id(),
            type: message.type,
            text: message.text,
            direction: "Inbound",
            time: time,
            content: content,
            originatingEntity: "Human"
        )
        let duration = self.settings.sessionDurationSeconds
        self.state.withLock { state in
            state.sessions[frame.token]?.messages.append(stored)
            state.sessions[frame.token]?.expirationDate = self.nowSeconds + duration
            state.messagesReceived += 1
            state.buttonResponses += message.buttonResponses
        }
        // The customer's message comes back to every socket of the session, with the request's tracingId
        // (Response.onMessage(direction = Inbound): type "message", tracingId "some_custom_message_id").
        for socket in self.connections(of: frame.token) { socket.send(.message("StructuredMessage", stored.json, tracingId: frame.tracingId)) }
        if self.settings.autoReply, !message.text.isEmpty {
            _ = try? self.agentSays(token: frame.token, text: "You said: \(message.text)")
        }
    }

    /// An Event message: Typing and Presence Join (the SDK's autostart, `AutoStartRequest.kt`) come back as
    /// Inbound events; Presence Clear clears the conversation when the deployment allows it.
    private func onEvents(
        _ message: SimGenesysInboundMessage,
        _ frame: SimGenesysClientFrame,
        session: Session,
        time: Date
    ) throws(SimGenesysWireError) {
        let presences = message.events.compactMap { $0["presence"]?["type"]?.string }
        if presences.contains("Clear") {
            // Response.clearConversationForbidden: 403 "Presence events Conversation Clear are not supported".
            guard self.settings.conversationClear else { throw SimGenesysWireError(403, "Presence events Conversation Clear are not supported") }
            self.state.withLock { $0.sessions[frame.token]?.messages = [] }
            // The SDK reads SessionClearedEvent, then ConnectionClosedEvent as "conversation cleared".
            for socket in self.connections(of: frame.token) {
                socket.send(.message("SessionClearedEvent", [:]))
                socket.send(.message("ConnectionClosedEvent", [:]))
            }
            return
        }
        let event = SimGenesysMessage(id: SimGenesysTime.id(), type: "Event", text: nil, direction: "Inbound", time: time, events: message.events)
        if presences.contains("Join") { self.state.withLock { $0.sessions[frame.token]?.messages.append(event) } }
        for socket in self.connections(of: frame.token) { socket.send(.message("StructuredMessage", event.json, tracingId: frame.tracingId)) }
    }

    // MARK: Faults that wear off

    private func takeRefusal() -> Int? {
        self.state.withLock { state in
            guard let index = state.faults.firstIndex(where: { if case .refuseConfigure = $0 { true } else { false } }),
                case .refuseConfigure(let code, let remaining) = state.faults[index]
            else { return nil }
            if remaining <= 1 { state.faults.remove(at: index) } else { state.faults[index] = .refuseConfigure(code: code, remaining: remaining - 1) }
            return code
        }
    }

    private func takeRateLimit() -> Int? {
        self.state.withLock { state in
            guard let index = state.faults.firstIndex(where: { if case .rateLimit = $0 { true } else { false } }),
                case .rateLimit(let retryAfter, let remaining) = state.faults[index]
            else { return nil }
            if remaining <= 1 {
                state.faults.remove(at: index)
            } else {
                state.faults[index] = .rateLimit(retryAfter: retryAfter, remaining: remaining - 1)
            }
            return retryAfter
        }
    }

    func takeUploadFailure() -> Bool {
        self.state.withLock { state in
            guard let index = state.faults.firstIndex(where: { if case .uploadFailure = $0 { true } else { false } }),
                case .uploadFailure(let remaining) = state.faults[index]
            else { return false }
            if remaining <= 1 { state.faults.remove(at: index) } else { state.faults[index] = .uploadFailure(remaining: remaining - 1) }
            return true
        }
    }
}
