// libFuzzer target for the GMSChat plugin's decoders: Bayeux batches, GMS Chat API v2 replies and v1
// `/_genesys` events, and the transcript ledger they feed. They depend on nothing but the standard
// library and JSONValue, so this file is compiled together with their sources; see scripts/fuzz bayeux.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBayeuxDecoder(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard let messages = try? BayeuxBatch.decode(bytes, limits: .init(maximumBytes: 1 << 16, maximumMessages: 256)) else { return 0 }
    // What was read is written back the same.
    let again = try? BayeuxBatch.decode(BayeuxBatch.encode(messages))
    precondition(again == messages, "a decoded batch does not survive encoding")
    var ledger = TranscriptLedger(shown: 0, waitingLimit: 64)
    for message in messages {
        _ = message.errorCode
        guard let data = message.data else { continue }
        if let reply = try? GMSChatV2Reply(decoding: data) {
            let outcome = ledger.accept(reply.messages)
            precondition(outcome.released.map(\.position) == outcome.released.map(\.position).sorted(), "released out of order")
        }
        if let event = try? GMSChatV1Event(decoding: data) {
            _ = ledger.accept(event.rows)
        }
    }
    _ = ledger.skipGap()
    return 0
}
