import AttendantPluginAPI
import AttendantPluginKit
import KarteCore

// The track requests on the network.

extension KarteActionsChannel {
    // MARK: The network

    /// Sends one track request (`json` uncompressed): its outcome for the machine. Runs beside others.
    func deliver(_ json: [UInt8], appKey: String) async -> Outcome {
        let body: [UInt8]
        do {
            body = try Gzip.compress(json)
        } catch {
            return .failure("cannot compress the body: \(error)")
        }
        let request = NetworkRequest(
            method: "POST",
            url: self.configuration.trackURL,
            headers: [
                NetworkHeader("X-KARTE-App-Key", appKey),
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
            return self.answer(try await self.host.network.send(request))
        } catch  where error.kind == .tooLarge {
            let reason = "the answer is larger than \(KarteTrackResponse.defaultSizeLimit) bytes"
            // A 2xx over the limit: KARTE has the events, so they are not sent again (only 5xx and network
            // failures are, as the SDKs retry: karte.md §1 "HTTP handling"); its actions are not read.
            if let status = error.status, (200..<300).contains(status) { return .unreadable(status: status, reason: reason) }
            return .failure(error.status.map { "HTTP status \($0), \(reason)" } ?? reason)
        } catch {
            switch error.kind {
            // The network's failures, not the server's: they spend no retry.
            case .resolution, .connection, .timeout, .closed: return .unanswered(error.message)
            default: return .failure(error.message)
            }
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
}
