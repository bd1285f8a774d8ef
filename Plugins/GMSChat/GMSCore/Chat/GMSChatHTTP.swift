package import AttendantPluginAPI
package import AttendantPluginKit

// The chat's HTTP calls beside CometD, as requests for the host's network and readings of what came back:
// chat API v1's form POSTs and v2's file management. The channel only sends them; every failure here names
// the server and the operation.

/// Where the HTTP calls go and who makes them.
package struct GMSChatHTTP: Sendable {
    /// GMS's base URL; each call's path goes under it.
    package var baseURL: String
    /// v1's `gms_user` header, which ties each POST to this client's CometD requests.
    package var gmsUser: String
    /// What failures call the server: `GMS at https://… (chat API v1)`.
    package var serverDescription: String
    /// How long a GMS round trip may take; v1's POSTs get one, file calls three.
    package var networkDelay: Duration

    package init(baseURL: String, gmsUser: String, serverDescription: String, networkDelay: Duration) {
        self.baseURL = baseURL
        self.gmsUser = gmsUser
        self.serverDescription = serverDescription
        self.networkDelay = networkDelay
    }

    var source: String { "\(GMSChatSession.prefix): \(self.serverDescription)" }

    // MARK: v1

    /// The POST of `form`.
    package func request(_ form: GMSChatV1Form) -> NetworkRequest {
        NetworkRequest(
            method: "POST",
            url: self.baseURL + form.path,
            headers: [
                NetworkHeader("Content-Type", "application/x-www-form-urlencoded"),
                NetworkHeader("gms_user", self.gmsUser),
            ],
            body: form.body,
            timeout: self.networkDelay
        )
    }

    /// The JSON object GMS answered `form` with, or why not.
    package func read(_ outcome: Result<NetworkResponse, NetworkError>, of form: GMSChatV1Form) -> Result<[String: JSONValue], ChannelError> {
        switch outcome {
        case .failure(let error):
            return .failure(ChannelError(.transient, "\(self.source): \(form.what) failed: \(error.message)"))
        case .success(let response):
            return GMSChatV1Form.answer(status: response.status, body: response.body).mapError { refusal in
                ChannelError(refusal.transient ? .transient : .server, "\(self.source): \(form.what) \(refusal.reason)")
            }
        }
    }

    /// `request-chat`'s service id.
    package func serviceID(_ reply: [String: JSONValue]) throws(ChannelError) -> String {
        do {
            return try GMSChatV1Form.serviceID(in: reply)
        } catch {
            throw ChannelError(.server, "\(self.source) answered request-chat without a service id (_id)")
        }
    }

    /// The chat's keys and first rows in the creation's answer.
    package func created(_ reply: [String: JSONValue], serviceID: String) throws(ChannelError) -> (GMSChatKeys, GMSChatV1Event) {
        do {
            return try GMSChatV1Form.created(reply, serviceID: serviceID)
        } catch {
            throw ChannelError(.server, "\(self.source) answered the chat's creation with an answer that is not valid: \(error)")
        }
    }

    /// `refresh`'s rows.
    package func refreshed(_ reply: [String: JSONValue], serviceID: String) throws(ChannelError) -> GMSChatV1Event {
        do {
            return try GMSChatV1Form.event(reply, serviceID: serviceID)
        } catch {
            throw ChannelError(.server, "\(self.source) answered refresh with rows that are not valid: \(error)")
        }
    }

    // MARK: v2 files

    /// The POST of a file operation; an answer over `maximumResponseSize` bytes fails.
    package func request(_ operation: GMSChatFileOperation, maximumResponseSize: Int = 4 << 20) -> NetworkRequest {
        NetworkRequest(
            method: "POST",
            url: self.baseURL + operation.path,
            headers: [NetworkHeader("Content-Type", operation.contentType)],
            body: operation.body,
            timeout: self.networkDelay * 3,
            maximumResponseSize: maximumResponseSize
        )
    }

    /// A 2xx answer to `operation`, or the failure naming it and what GMS said.
    package func response(
        _ outcome: Result<NetworkResponse, NetworkError>,
        of operation: GMSChatFileOperation,
        limit: Int
    ) -> Result<NetworkResponse, ChannelError> {
        let prefix = GMSChatSession.prefix
        let server = self.serverDescription
        switch outcome {
        case .failure(let error) where error.kind == .tooLarge:
            return .failure(
                ChannelError(
                    .invalidArgument,
                    "\(prefix): \(operation.what) from \(server) brought more than \(limit) bytes, more than attendant takes"
                )
            )
        case .failure(let error):
            return .failure(ChannelError(.transient, "\(prefix): \(operation.what) at \(server) failed: \(error.message)"))
        case .success(let response) where !(200..<300).contains(response.status):
            var reason: String?
            if case .failure(let refusal) = GMSChatV1Form.answer(status: response.status, body: response.body) { reason = refusal.reason }
            return .failure(
                ChannelError(
                    (500..<600).contains(response.status) ? .transient : .server,
                    "\(prefix): \(server) refused \(operation.what): \(reason ?? "HTTP \(response.status)")"
                )
            )
        case .success(let response):
            return .success(response)
        }
    }

    /// A JSON answer whose `statusCode` is 0 (or absent), or the failure with GMS's `errors`.
    package func answer(_ response: NetworkResponse, of operation: GMSChatFileOperation) throws(ChannelError) -> [String: JSONValue] {
        let prefix = GMSChatSession.prefix
        guard case .success(let object) = GMSChatV1Form.answer(status: response.status, body: response.body) else {
            throw ChannelError(.server, "\(prefix): \(self.serverDescription) answered \(operation.what) with something that is not a GMS reply")
        }
        let reply = try? GMSChatV2Reply(decoding: .object(object))
        if let reply, reply.statusCode != 0 {
            let reason = reply.errors.isEmpty ? "status \(reply.statusCode)" : reply.errors.joined(separator: "; ")
            throw ChannelError(.server, "\(prefix): \(self.serverDescription) refused \(operation.what): \(reason)")
        }
        return object
    }
}
