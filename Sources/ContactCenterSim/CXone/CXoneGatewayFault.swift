/// A way the CXone gateway misbehaves, until ``CXoneGateway/clearFaults()`` (``dropOnNextMessage`` fires once).
package enum CXoneGatewayFault: Sendable, Hashable {
    /// Frames of this event type (e.g. `SendMessage`) are answered `{"message", "connectionId",
    /// "requestId"}` instead of being handled.
    case serverError(eventType: String)
    /// Frames of this event type are answered with an operation error carrying `errorCode`.
    case operationError(eventType: String, errorCode: String)
    /// The next client event (not a heartbeat) closes its socket unanswered.
    case dropOnNextMessage
    /// Heartbeats go unanswered.
    case missingPongs
    /// `GET /s3/{id}` answers 500.
    case failingEventInS3
    /// `GET /files/{id}` (an attachment's download) is never answered; the connection stays open until
    /// the client gives up.
    case stallingDownloads
    /// The gateway is unreachable: every open client socket is dropped at once (as
    /// ``CXoneGateway/dropConnections()``), WebSocket upgrades on `/chat-gateway` are refused with 503, and
    /// the chat REST endpoints (channel configuration, availability, web-analytics) answer 503. Threads,
    /// messages, tokens and visitors stay in memory, so a client that connects after
    /// ``CXoneGateway/clearFaults()`` recovers its threads.
    case down
    /// One REST endpoint answers `status` (500) with a CXone service error body carrying `errorCode`
    /// (`InternalServerError`; `SdkVersionNotSupported` is how CXone refuses a client version):
    /// `configuration`, `availability`, `visitor` (the visitor's PUT) or `events` (analytics POSTs).
    case restError(endpoint: String, errorCode: String = "InternalServerError", status: Int = 500)
}
