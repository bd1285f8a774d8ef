import AttendantPluginAPI
import AttendantPluginKit
import GMSCore

/// GMS Chat API v1's HTTP operations on the host's network, as the seed shows them: form POSTs under the
/// base URL, each with the `gms_user` header that ties it to this client's CometD requests. GMSCore's
/// ``GMSChatV1Form`` makes each request and reads its answer; the chat's events arrive on `/_genesys`.
struct GMSChatV1Client: Sendable {
    let network: any ChannelNetwork
    let configuration: GMSChatConfiguration

    /// `gms-chat: GMS at https://… (chat API v1)`, what every failure starts with.
    var source: String { "\(GMSChatSession.prefix): \(self.configuration.serverDescription)" }

    /// `request-chat` makes the chat's service; its id.
    func requestChat() async throws(ChannelError) -> String {
        let reply = try await self.post(.requestChat(service: self.configuration.service, subject: self.configuration.customer.subject))
        do {
            return try GMSChatV1Form.serviceID(in: reply)
        } catch {
            throw ChannelError(.server, "\(self.source) answered request-chat without a service id (_id)")
        }
    }

    /// Creates the chat interaction (`notify_by=comet`): its keys and first rows.
    func createInteraction(serviceID: String) async throws(ChannelError) -> (GMSChatKeys, GMSChatV1Event) {
        let reply = try await self.post(.createInteraction(serviceID: serviceID, customer: self.configuration.customer))
        do {
            return try GMSChatV1Form.created(reply, serviceID: serviceID)
        } catch {
            throw ChannelError(.server, "\(self.source) answered the chat's creation with an answer that is not valid: \(error)")
        }
    }

    /// `refresh`: the rows after `position`.
    func refresh(serviceID: String, after position: Int) async throws(ChannelError) -> GMSChatV1Event {
        let reply = try await self.post(.refresh(serviceID: serviceID, after: position))
        do {
            return try GMSChatV1Form.event(reply, serviceID: serviceID)
        } catch {
            throw ChannelError(.server, "\(self.source) answered refresh with rows that are not valid: \(error)")
        }
    }

    /// An operation of the chat: `send`, `startTyping`, `stopTyping`, `disconnect`. The rows its answer
    /// carries, if it carries valid ones.
    func operate(_ operation: String, serviceID: String, fields: [String: String]) async throws(ChannelError) -> GMSChatV1Event? {
        let reply = try await self.post(.operation(operation, serviceID: serviceID, fields: fields))
        return try? GMSChatV1Form.event(reply, serviceID: serviceID)
    }

    /// POSTs `form` and reads the JSON object GMS answers.
    func post(_ form: GMSChatV1Form) async throws(ChannelError) -> [String: JSONValue] {
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.baseURL + form.path,
            headers: [
                NetworkHeader("Content-Type", "application/x-www-form-urlencoded"),
                NetworkHeader("gms_user", self.configuration.gmsUser),
            ],
            body: form.body,
            timeout: self.configuration.machine.networkDelay
        )
        let response: NetworkResponse
        do {
            response = try await self.network.send(request)
        } catch {
            throw ChannelError(.transient, "\(self.source): \(form.what) failed: \(error.message)")
        }
        switch GMSChatV1Form.answer(status: response.status, body: response.body) {
        case .success(let object):
            return object
        case .failure(let refusal):
            throw ChannelError(refusal.transient ? .transient : .server, "\(self.source): \(form.what) \(refusal.reason)")
        }
    }
}
