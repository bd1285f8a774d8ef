import CXoneCore
import Foundation
import Testing

@testable import ContactCenterSim

/// The simulator's own CXone frame codec (Sources/ContactCenterSim/CXone/Wire) against the plugin's
/// (`CXoneCore`): what one writes, the other must read the same.
@Suite struct SimCXoneFrameTests {
    static let customer = CXoneWire.CustomerIdentity(idOnExternalPlatform: "Cust-1", firstName: "Grace")

    static func clientFrame(_ event: CXoneSentEvent, visitor: CXoneID? = nil) throws -> (CXoneClientFrame, SimCXoneClientFrame) {
        let frame = CXoneClientFrame(brandId: 1386, channelId: "chat_sim", customer: Self.customer, visitorId: visitor, event: event)
        guard case .frame(let parsed) = try SimCXoneClientFrame.parse(try CXoneOutbound.frame(frame).encoded()) else {
            throw SimCXoneWireError("read as a heartbeat")
        }
        return (frame, parsed)
    }

    @Test func clientFramesThePluginWritesReadHere() throws {
        let thread = CXoneID.random()
        let message = CXoneWire.SendMessage(thread: .init(idOnExternalPlatform: thread), messageContent: .text("Hi"), idOnExternalPlatform: "m-1")
        let (sent, read) = try Self.clientFrame(.sendMessage(message), visitor: "v-1")
        #expect(read.eventId == sent.eventId.rawValue)
        #expect(read.eventType == "SendMessage")
        #expect(read.brandId == 1386)
        #expect(read.channelId == "chat_sim")
        #expect(read.customerId == "Cust-1")
        #expect(read.customer["firstName"]?.string == "Grace")
        #expect(read.visitorId == "v-1")
        #expect(read.data["thread"]?["idOnExternalPlatform"]?.string == thread.rawValue)
        #expect(read.data["messageContent"]?["payload"]?["text"]?.string == "Hi")
        #expect(read.data["idOnExternalPlatform"]?.string == "m-1")

        let oauth = CXoneWire.AuthorizeCustomer(authorizationCode: CXoneSecret("code"), codeVerifier: CXoneSecret("verifier"), sdkVersion: "1.0")
        let (_, authorize) = try Self.clientFrame(.authorizeCustomer(oauth))
        #expect(authorize.eventType == "AuthorizeCustomer")
        #expect(authorize.data["authorization"]?["authorizationCode"]?.string == "code")
        #expect(authorize.data["authorization"]?["codeVerifier"]?.string == "verifier")
        #expect(authorize.customerId == "Cust-1", "AuthorizeCustomer names the customer too")

        #expect(try SimCXoneClientFrame.parse(CXoneOutbound.heartbeatText) == .heartbeat)
        #expect(throws: SimCXoneWireError.self) { try SimCXoneClientFrame.parse(Array("{\"action\":\"chatWindowEvent\"}".utf8)) }
        #expect(throws: SimCXoneWireError.self) { try SimCXoneClientFrame.parse(Array("[1]".utf8)) }
    }

    @Test func serverFramesWrittenHereReadTheSameInThePlugin() throws {
        #expect(SimCXoneServerFrame.pong.encoded == CXoneInbound.pongText)

        let identity: GMSJSON = ["idOnExternalPlatform": "cust-1", "firstName": "Grace"]
        let postback = SimCXoneServerFrame.postback(eventId: "e-1", eventType: "ConsumerAuthorized", data: ["consumerIdentity": identity])
        guard case .postback(let eventId, .consumerAuthorized(let authorized)) = try CXoneInbound.decode(postback.encoded) else {
            Issue.record("not a ConsumerAuthorized postback")
            return
        }
        #expect(eventId == "e-1")
        #expect(authorized.consumerIdentity?.idOnExternalPlatform == "CUST-1", "ids compare without regard to case")

        let at = Date(timeIntervalSince1970: 1_800_000_000.25)
        let event = SimCXoneServerFrame.event(
            eventId: "e-2",
            eventType: "EventInS3",
            createdAt: at,
            data: ["s3Object": ["url": "http://x/s3/1"], "originEvent": ["eventType": "MessageCreated"]]
        )
        guard case .event(_, let createdAt, .eventInS3(let notice)) = try CXoneInbound.decode(event.encoded) else {
            Issue.record("not an EventInS3 event")
            return
        }
        #expect(createdAt == at)
        #expect(notice.url == "http://x/s3/1")
        #expect(notice.originEventType == "MessageCreated")

        let failure = SimCXoneServerFrame.operationError(code: "ThreadNotFound", message: "no thread", transactionId: "e-3")
        guard case .operationError(let error) = try CXoneInbound.decode(failure.encoded) else {
            Issue.record("not an operation error")
            return
        }
        #expect(error.errorCode == "ThreadNotFound")
        #expect(error.transactionId == "e-3")

        let serverError = SimCXoneServerFrame.serverError(message: "Internal server error", connectionId: "7", requestId: "e-4")
        guard case .serverError(let server) = try CXoneInbound.decode(serverError.encoded) else {
            Issue.record("not a server error")
            return
        }
        #expect(server.requestId == "e-4")
        #expect(server.connectionId == "7")
    }

    @Test func timestampsMatchThePlugins() throws {
        for seconds in [0, 1_800_000_000.123, 1_700_000_000.5] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(SimCXoneTime.format(date) == CXoneTimestamp.format(date))
            // Foundation's ISO 8601 parser and the plugin's hand-written one land on different doubles below a
            // microsecond (.123 vs .12299999…); the wire carries milliseconds, so that is where they must agree.
            let ours = try #require(SimCXoneTime.parse(CXoneTimestamp.format(date)))
            let theirs = try #require(CXoneTimestamp.parse(CXoneTimestamp.format(date)))
            #expect((ours.timeIntervalSince1970 * 1000).rounded() == (theirs.timeIntervalSince1970 * 1000).rounded())
        }
    }
}
