import AsyncHTTPClient
import ContactCenterSim
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// The track endpoint's injected faults: each mode's answer, counts, and that faulted requests are recorded.
extension KarteTrackTests {
    @Test func statusFaultsAnswerTheNextRequestsAndStillRecordThem() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"status","status":500,"count":2}"#).0 == 200)
        for _ in 0..<2 {
            let answer = try await client.track([("view", ["view_name": "home"])])
            #expect(answer.status == 500)
            let json = try answer.json()
            #expect(json["success"] as? Int == 0)
            #expect(json["status"] as? Int == 500)
            #expect(json["error"] as? String == "server error")
        }
        #expect(try await client.track([("view", ["view_name": "home"])]).status == 200)
        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"status","status":400}"#).0 == 200)
        let refused = try await client.track([("view", [:])])
        #expect(refused.status == 400)
        #expect(try refused.json()["error"] as? String == "invalid request")
        #expect(simulator.karte.requests.map(\.status) == [500, 500, 200, 400])
        #expect(simulator.karte.events.map(\.request) == [1, 2, 3, 4])

        // A wrong key is refused before any fault applies, and does not use it up.
        simulator.karte.inject(.status(503))
        #expect(try await client.track(try KarteTestClient.body([]), appKey: String(repeating: "x", count: 32)).status == 401)
        #expect(try await client.track([("view", [:])]).status == 503)
        simulator.karte.inject(.status(503), count: 5)
        #expect(try await client.control(.DELETE, "/control/karte/fault").0 == 200)
        #expect(try await client.track([("view", [:])]).status == 200)

        for bad in [#"{"mode":"teapot"}"#, #"{"mode":"status"}"#, #"{"mode":"hang","seconds":0}"#, #"{"mode":"malformed","count":0}"#, "[]"] {
            #expect(try await client.control(.POST, "/control/karte/fault", json: bad).0 == 400, "\(bad)")
        }
    }

    @Test func malformedWrongShapeFakeGzipAndUnknownFields() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        let view: [(String, [String: Any])] = [("view", ["view_name": "home"])]

        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"malformed"}"#).0 == 200)
        let malformed = try await client.track(view)
        #expect(malformed.status == 200)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(malformed.bytes)) }

        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"wrong-shape"}"#).0 == 200)
        let wrongShape = try await client.track(view)
        #expect(wrongShape.status == 200)
        #expect(try wrongShape.response["messages"] as? String == "not-an-array")

        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"fake-gzip"}"#).0 == 200)
        let fake = try await client.track(view, acceptGzip: true)
        #expect(fake.status == 200)
        #expect(fake.headers["content-encoding"] == ["gzip"])
        #expect(throws: (any Error).self) { try TestGzip.decompress(fake.bytes) }
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(fake.bytes)) as? [String: Any])
        #expect(plain["success"] as? Int == 1)

        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"unknown-fields"}"#).0 == 200)
        let unknown = try await client.track(view, acceptGzip: true)
        #expect(unknown.headers["content-encoding"] == ["gzip"])
        let json = try unknown.json()
        let response = try unknown.response
        let message = try #require(try unknown.messages.first)
        let action = try #require(message["action"] as? [String: Any])
        let objects: [[String: Any]?] = [
            json, response, message, action, action["content"] as? [String: Any], message["campaign"] as? [String: Any],
            message["trigger"] as? [String: Any], response["options"] as? [String: Any], (response["events"] as? [[String: Any]])?.first,
        ]
        for object in objects { #expect(object?["x_simulator_unknown"] != nil) }
        #expect(action["_id"] as? String != nil)
        #expect((action["content"] as? [String: Any])?["title"] as? String == "Welcome back")

        #expect(simulator.karte.requests.map(\.status) == [200, 200, 200, 200])
        #expect(simulator.karte.events.count == 4)
    }

    @Test func oversizeAnswersTenMegabytesOfValidJSON() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"oversize"}"#).0 == 200)
        let answer = try await client.track([("view", ["view_name": "home"])])
        #expect(answer.status == 200)
        #expect(answer.bytes.count > 10_000_000)
        let messages = try answer.messages
        #expect(messages.count == 2)
        let body = ((messages.last?["action"] as? [String: Any])?["content"] as? [String: Any])?["body"] as? String
        #expect((body?.utf8.count ?? 0) >= 10 << 20)
        #expect(try await client.track([("view", [:])]).bytes.count < 10_000)
    }

    @Test func hangNeverAnswersAndClosesAfterItsSeconds() async throws {
        let (simulator, client) = try await Self.start()
        defer { Task { await simulator.stop() } }
        // The client gives up first.
        simulator.karte.inject(.hang(.seconds(30)))
        await #expect(throws: (any Error).self) { try await client.track([("view", [:])], timeout: .seconds(1)) }
        #expect(simulator.karte.requests.last?.status == 0)
        #expect(simulator.karte.events.count == 1)

        // The simulator gives up first: the connection closes unanswered after "seconds".
        #expect(try await client.control(.POST, "/control/karte/fault", json: #"{"mode":"hang","seconds":0.5}"#).0 == 200)
        let clock = ContinuousClock()
        let start = clock.now
        // Closed by the server, not given up by the client: the error is not the client's deadline.
        let error = await #expect(throws: (any Error).self) { try await client.track([("view", [:])], timeout: .seconds(60)) }
        #expect((error as? HTTPClientError) != .deadlineExceeded, "\(String(describing: error))")
        #expect(clock.now - start >= .milliseconds(500))
        #expect(try await client.track([("view", [:])]).status == 200)
    }
}
