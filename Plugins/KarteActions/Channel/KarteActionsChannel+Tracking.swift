import AttendantPluginAPI
import AttendantPluginKit
import KarteCore

// The track requests on the network.

extension KarteActionsChannel {
    // MARK: The network

    /// Sends one track request and hands the outcome to the machine. Runs concurrently with others.
    func deliver(_ send: Send) async {
        let body: [UInt8]
        do {
            body = try Gzip.compress(send.body)
        } catch {
            self.complete(send.requestID, .failure("cannot compress the body: \(error)"))
            return
        }
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.trackURL,
            headers: [
                NetworkHeader("X-KARTE-App-Key", send.appKey),
                NetworkHeader("Content-Type", "application/json"),
                NetworkHeader("Content-Encoding", "gzip"),
                NetworkHeader("Accept-Encoding", "gzip"),
            ],
            body: body,
            timeout: self.configuration.requestTimeout,
            // Gzip answers are unpacked up to the decoder's limit below; this bounds what is read at all.
            maximumResponseSize: KarteTrackResponse.defaultSizeLimit,
            usesCookies: false
        )
        do {
            let response = try await self.host.network.send(request)
            self.complete(send.requestID, self.answer(response))
        } catch {
            self.complete(send.requestID, .failure(error.kind == .tooLarge ? "the answer is larger than \(KarteTrackResponse.defaultSizeLimit) bytes" : error.message))
        }
    }

    typealias Outcome = Session.Outcome

    private func answer(_ response: NetworkResponse) -> Outcome {
        guard response.header("Content-Encoding")?.lowercased() == "gzip" else {
            return .answer(status: response.status, body: response.body)
        }
        do {
            return .answer(status: response.status, body: try Gzip.decompress(response.body, limit: KarteTrackResponse.defaultSizeLimit))
        } catch {
            return .unreadable(status: response.status, reason: "a \(response.body.count)-byte body marked gzip could not be unpacked: \(error)")
        }
    }

    private func complete(_ requestID: UInt64, _ outcome: Outcome) {
        let now = self.host.now()
        self.driver.step { $0.completed(requestID, outcome, now: now) }
    }
}
