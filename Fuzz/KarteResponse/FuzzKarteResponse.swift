// libFuzzer target for the KarteActions plugin's track-response decoder (issue 13): a KARTE track API
// response, its messages (action, campaign, trigger) and their timestamps. The decoder depends on nothing
// but the standard library, JSONValue and UnixTime, so this file is compiled with their sources; see
// scripts/fuzz karte.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKarteResponse(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    // Any text may be a response_timestamp.
    _ = KarteTimestamp.parse(String(decoding: bytes.prefix(64), as: UTF8.self))
    guard let response = try? KarteTrackResponse.decode(bytes, sizeLimit: 1 << 16) else { return 0 }
    for message in response.messages {
        _ = (message.actionID, message.campaignID, message.shortenID, message.isRemoteConfig, message.isControlGroup)
        if let stamp = message.action.responseTimestamp { _ = KarteTimestamp.parse(stamp) }
        // What was kept whole is valid JSON again.
        precondition((try? JSONValue.parse(message.json.encoded())) == message.json, "a message's JSON does not survive encoding")
    }
    return 0
}
