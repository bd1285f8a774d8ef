import Foundation
import Synchronization

/// `POST /v0/native/track`: check the app key, read the (maybe gzipped) body, record its events, then
/// answer with the triggered campaigns' messages, or with the pending fault.
extension KarteTrackServer {
    /// A track body as the server reads it: keys, app_info and events.
    struct TrackBody {
        struct Event {
            var name: String
            var values: GMSJSON
        }

        var keys: KarteKeys
        var appInfo: GMSJSON?
        var events: [Event]

        /// Nil unless the body is a JSON object with `keys` an object and `events` an array of objects that
        /// each have a string `event_name` (and `values`, if present, an object).
        init?(json: GMSJSON) {
            guard let keys = json["keys"], keys.object != nil, let events = json["events"]?.array else { return nil }
            var parsed: [Event] = []
            for event in events {
                guard let name = event["event_name"]?.string else { return nil }
                let values = event["values"] ?? [:]
                guard values.object != nil else { return nil }
                parsed.append(Event(name: name, values: values))
            }
            self.keys = KarteKeys(keys)
            self.appInfo = json["app_info"]
            self.events = parsed
        }
    }

    /// What the route does once the state has been updated.
    enum TrackOutcome {
        /// Answer after `hold` (a campaign's ``KarteCampaign/delayMs``).
        case answer(HTTPReply, hold: Duration)
        /// Never answer; close the connection after this long unless the client closes it first.
        case hang(Duration)
    }

    /// The answer to a track request; nil for any other path.
    func trackRoute(_ request: HTTPRouteRequest) async -> HTTPReply? {
        guard request.path == Self.trackPath else { return nil }
        guard request.method == "POST" else { return Self.errorReply(405, "method not allowed") }
        let gzipped = request.headers["content-encoding"].map(Self.namesGzip) ?? false
        // Read outside the lock: inflating and parsing a large body must not stall the control API.
        let body: TrackBody?
        if gzipped {
            body = (try? Gzip.decompress(request.body)).flatMap { GMSJSON.parse($0) }.flatMap(TrackBody.init(json:))
        } else {
            body = GMSJSON.parse(request.body).flatMap(TrackBody.init(json:))
        }
        let now = self.now()
        let acceptsGzip = request.headers["accept-encoding"].map(Self.namesGzip) ?? false
        let outcome = self.state.withLock { state in
            Self.handle(appKey: request.headers["x-karte-app-key"], gzipped: gzipped, body: body, acceptsGzip: acceptsGzip, now: now, state: &state)
        }
        switch outcome {
        case .answer(let reply, let hold):
            if hold > .zero { try? await Task.sleep(for: hold) }
            return reply
        case .hang(let limit):
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: limit)
            while request.connection?.isOpen ?? false, clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
            return .dropConnection
        }
    }

    /// Records the request (and its events) and decides its answer.
    static func handle(appKey: String?, gzipped: Bool, body: TrackBody?, acceptsGzip: Bool, now: Double, state: inout State) -> TrackOutcome {
        state.requestsReceived += 1
        let number = state.requestsReceived
        var record = KarteRecordedRequest(
            request: number,
            status: 200,
            gzip: gzipped,
            eventCount: body?.events.count ?? 0,
            appKeyOK: appKey == state.settings.appKey,
            keys: body?.keys ?? KarteKeys(nil)
        )
        defer { state.requests.append(record) }
        guard record.appKeyOK else {
            record = KarteRecordedRequest(request: number, status: 401, gzip: gzipped, eventCount: 0, appKeyOK: false, keys: KarteKeys(nil))
            return .answer(Self.errorReply(401, "invalid app key"), hold: .zero)
        }
        guard let body else {
            record.status = 400
            return .answer(Self.errorReply(400, "invalid request"), hold: .zero)
        }
        for event in body.events {
            state.events.append(
                KarteRecordedEvent(
                    request: number,
                    eventName: event.name,
                    keys: body.keys,
                    retry: event.values["_retry"] == .bool(true),
                    gzip: gzipped,
                    values: event.values
                )
            )
        }
        if let appInfo = body.appInfo { state.appInfo = appInfo }

        let fault = state.fault?.fault
        if let pending = state.fault {
            state.fault = pending.remaining > 1 ? (pending.fault, pending.remaining - 1) : nil
        }
        let gzipAnswer = acceptsGzip && state.settings.gzipAnswers
        switch fault {
        case .status(let status):
            record.status = status
            return .answer(Self.errorReply(status, status >= 500 ? "server error" : "invalid request"), hold: .zero)
        case .hang(let limit):
            record.status = 0
            return .hang(limit)
        case .malformed:
            return .answer(Self.success(Array(#"{"success":1,"status":200,"response":{"messages":[{"action":"#.utf8), gzip: gzipAnswer), hold: .zero)
        case .wrongShape:
            let shape: GMSJSON = ["success": 1, "status": 200, "response": ["messages": "not-an-array"]]
            return .answer(Self.success(shape.encoded, gzip: gzipAnswer), hold: .zero)
        case .fakeGzip:
            var reply = Self.success(Self.answer(to: body, now: now, state: &state).json.encoded, gzip: false)
            reply.headers.append((name: "Content-Encoding", value: "gzip"))
            return .answer(reply, hold: .zero)
        case .oversize, .unknownFields, nil:
            let answer = Self.answer(to: body, now: now, state: &state)
            var json = answer.json
            if fault == .oversize { json = Self.withOversizeMessage(json, now: now) }
            if fault == .unknownFields { json = Self.withUnknownFields(json) }
            return .answer(Self.success(json.encoded, gzip: gzipAnswer), hold: answer.hold)
        }
    }

    /// A 200 answer, gzipped (with `Content-Encoding: gzip`) if the client accepts it.
    static func success(_ bytes: [UInt8], gzip: Bool) -> HTTPReply {
        guard gzip else { return .encoded(bytes) }
        return HTTPReply(status: 200, body: "", bytes: Gzip.compress(bytes), headers: [(name: "Content-Encoding", value: "gzip")])
    }

    /// KARTE's error body: `{"success":0,"status":N,"error":TEXT}`, never gzipped.
    static func errorReply(_ status: Int, _ text: String) -> HTTPReply {
        let json: GMSJSON = ["success": 0, "status": .int(status), "error": .string(text)]
        return json.reply(status: status)
    }

    /// Whether a `Content-Encoding` or `Accept-Encoding` value lists gzip (`gzip, deflate`, `gzip;q=1`).
    static func namesGzip(_ header: String) -> Bool {
        header.split(separator: ",").contains { coding in
            let name = coding.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            return name == "gzip" || name == "x-gzip"
        }
    }
}
