import Foundation
import Synchronization

/// `/control/karte/…`: recorded events and requests, the campaign script, faults and gzip answers, for
/// tests and the demo in another process. Bodies and answers are JSON.
extension KarteTrackServer {
    /// The answer to `/control/karte/<what>`; nil for any other path.
    func controlRoute(_ request: HTTPRouteRequest) -> HTTPReply? {
        let segments = request.segments
        guard segments.count == 3, segments[0] == "control", segments[1] == "karte" else { return nil }
        do throws(SimulatorError) {
            switch (request.method, segments[2]) {
            case ("GET", "events"):
                return GMSJSON.array(self.events.map(\.json)).reply()
            case ("DELETE", "events"):
                self.clearEvents()
            case ("GET", "requests"):
                return GMSJSON.array(self.requests.map(\.json)).reply()
            case ("DELETE", "requests"):
                self.clearRequests()
            case ("GET", "app-info"):
                return (self.state.withLock { $0.appInfo } ?? .null).reply()
            case ("GET", "campaigns"):
                return .encoded(Self.encode(self.campaigns))
            case ("PUT", "campaigns"):
                self.setCampaigns(try KarteCampaign.list(fromJSON: request.body, source: "PUT /control/karte/campaigns"))
            case ("POST", "fault"):
                let body = try Self.jsonBody(request)
                let fault = try KarteFault(json: body)
                let count = body["count"]?.intOrNumericString ?? 1
                guard count > 0 else { throw SimulatorError(.karteFault, "\"count\" must be a positive whole number") }
                self.inject(fault, count: count)
            case ("DELETE", "fault"):
                self.clearFaults()
            case ("POST", "gzip-answers"):
                guard case .bool(let on) = try Self.jsonBody(request)["on"] else {
                    return .error(400, "the body must be {\"on\": true|false}")
                }
                self.gzipAnswers = on
                return .json(["gzip_answers": on])
            default:
                return .error(404, "no endpoint \(request.method) \(request.path); see attendant-sim --help")
            }
        } catch {
            return .error(400, error.message)
        }
        return .json(["ok": true])
    }

    private static func jsonBody(_ request: HTTPRouteRequest) throws(SimulatorError) -> GMSJSON {
        guard let json = GMSJSON.parse(request.body), json.object != nil else {
            throw SimulatorError(.karteFault, "\(request.method) \(request.path) needs a JSON object body")
        }
        return json
    }

    private static func encode(_ campaigns: [KarteCampaign]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(campaigns)).map(Array.init) ?? Array("[]".utf8)
    }
}
