import CXoneCore
import ContactCenterSim
import Foundation
import Testing

// The demo's conversation: the agent's greeting, followed by the quick replies --cxone-greeting-offer asks for.
extension CXoneGatewayTests {
    @Test func theGreetingIsFollowedByTheChoicesAsked() async throws {
        var settings = CXoneGatewaySettings()
        settings.greeting = "Hello, this is Ada."
        settings.greetingDelay = .milliseconds(50)
        settings.greetingOffer = "quick-replies"
        let simulator = try await Self.start(settings)
        defer { Task { await simulator.stop() } }
        let client = try await CXoneTestClient.connect(simulator)
        // A customer without a thread authorizes: the agent greets two seconds later (here 50 ms).
        client.send(.authorizeCustomer(.init(sdkVersion: "1.0")))

        var created: [CXoneWire.Message] = []
        while created.count < 2 {
            if case .event(_, _, .messageCreated(let event)) = try await client.receive() { created.append(event.message) }
        }
        #expect(created.map(\.direction) == [.outbound, .outbound])
        #expect(created[0].messageContent.richContent == nil, "the greeting is plain text first")
        guard case .quickReplies(let title, let buttons)? = created[1].messageContent.richContent else {
            throw CXoneGatewayTestFailure("no quick replies after the greeting: \(created)")
        }
        #expect(title == "Which topic?" && buttons.map(\.text) == ["Billing", "Delivery"])
        #expect(created[0].threadIdOnExternalPlatform == created[1].threadIdOnExternalPlatform, "in the greeting's thread")
    }
}
