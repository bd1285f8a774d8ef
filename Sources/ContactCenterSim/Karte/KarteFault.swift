/// How the track endpoint misbehaves on the next track requests that have a valid app key and body (a
/// wrong key still gets 401 and a bad body 400, and neither uses the fault up). Their events are still
/// recorded; only the answer changes. Every 200 answer except `fakeGzip`'s is gzipped like a normal one
/// when the client accepts gzip.
package enum KarteFault: Sendable, Hashable {
    /// This HTTP status with an error JSON body (`{"success":0,"status":N,"error":…}`).
    case status(Int)
    /// Read the request and never answer; the connection is closed after this long, or when the client
    /// gives up first.
    case hang(Duration)
    /// 200 with a body that is not JSON.
    case malformed
    /// 200 with `response.messages` a string instead of an array.
    case wrongShape
    /// 200 with a valid answer of about 10 MB (one extra message whose body is 10 MB of text).
    case oversize
    /// 200, `Content-Encoding: gzip`, and a plain JSON body.
    case fakeGzip
    /// 200, the normal answer with an unknown key added to every object: clients must ignore them.
    case unknownFields

    /// `{"mode": M, "status": N, "seconds": S}` from `POST /control/karte/fault`.
    init(json: GMSJSON) throws(SimulatorError) {
        switch json["mode"]?.string {
        case "status":
            guard let status = json["status"]?.intOrNumericString, (100...599).contains(status) else {
                throw SimulatorError(.karteFault, "mode \"status\" needs \"status\": an HTTP status from 100 to 599")
            }
            self = .status(status)
        case "hang":
            let seconds = json["seconds"].flatMap(Self.seconds) ?? 60
            guard seconds > 0 else { throw SimulatorError(.karteFault, "\"seconds\" must be more than 0") }
            self = .hang(.milliseconds(Int(seconds * 1000)))
        case "malformed": self = .malformed
        case "wrong-shape": self = .wrongShape
        case "oversize": self = .oversize
        case "fake-gzip": self = .fakeGzip
        case "unknown-fields": self = .unknownFields
        case let other:
            throw SimulatorError(
                .karteFault,
                "unknown KARTE fault mode \(other.map { "\"\($0)\"" } ?? "(none)"): use status, hang, malformed, wrong-shape, oversize, fake-gzip or unknown-fields"
            )
        }
    }

    private static func seconds(_ value: GMSJSON) -> Double? {
        switch value {
        case .int(let seconds): Double(seconds)
        case .double(let seconds): seconds
        default: nil
        }
    }
}
