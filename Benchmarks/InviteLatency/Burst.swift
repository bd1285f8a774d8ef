import AttendantPluginAPI
import Glibc
import SIPCore
import SIPVoice

/// `burst N [udp|tcp|both]`: N INVITEs sent back to back (each `sendto`/`send` right after the previous
/// one), then the answers collected. Over UDP the caller keeps RFC 3261 timer A for each INVITE that has no
/// provisional answer yet (first retransmission after T1 = 500 ms, then doubling), as a real caller does,
/// and counts the retransmissions: an INVITE the channel lost (socket buffer full) needs one. Figures:
/// retransmissions, INVITEs that never rang, and INVITE → 180 Ringing from each INVITE's first send.
func burst(_ count: Int, over transport: Peer.Transport) async throws {
    let peer = try Peer(transport)
    let host = TimingHost()
    let settings = ChannelSettings([
        "registrar": .string(peer.registrarURI),
        "address-of-record": .string("sip:bench@127.0.0.1"),
        "authentication": .string("none"),
        "outbound": .bool(false),
        "ring-timeout": .string("120s"),
    ])
    let channel = try SIPVoicePluginFactory().makeChannel(settings: settings, host: host)
    let listening = Task { try await channel.listen() }
    var caller = Caller(peer: peer, target: try acceptRegistration(on: peer))
    try await listening.value

    let invites = (0..<count).map { caller.invite($0) }
    var firstSent: [String: Duration] = [:]
    var nextRetransmit: [String: (at: Duration, interval: Duration)] = [:]
    for invite in invites {
        try peer.send(.request(invite))
        let now = monotonicNow()
        let callID = invite.headers[.callID] ?? ""
        firstSent[callID] = now
        nextRetransmit[callID] = (now + .milliseconds(500), .milliseconds(500))
    }
    var ringing = Figure("burst of \(count) INVITEs (\(transport.rawValue.uppercased())): INVITE first sent → 180 Ringing received", capacity: count)
    var retransmissions = 0
    var answered = Set<String>()
    let byCallID = Dictionary(uniqueKeysWithValues: invites.map { ($0.headers[.callID] ?? "", $0) })
    let deadline = monotonicNow() + .seconds(40)
    while ringing.samples.count < count, monotonicNow() < deadline {
        let message: SIPMessage?
        switch transport {
        case .udp:
            let due = nextRetransmit.values.map(\.at).min() ?? (monotonicNow() + .seconds(1))
            let wait = due - monotonicNow()
            message = try peer.receive(within: Int32(max(0, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)))
        case .tcp:
            message = try peer.receive()
        }
        let now = monotonicNow()
        if case .response(let response)? = message, let callID = response.headers[.callID] {
            if response.statusCode < 200 { nextRetransmit[callID] = nil }  // timer A stops at a provisional answer
            if response.statusCode == 180, !answered.contains(callID), let sent = firstSent[callID] {
                answered.insert(callID)
                ringing.add(now - sent)
            }
        }
        for (callID, timer) in nextRetransmit where timer.at <= now {
            guard let invite = byCallID[callID] else { continue }
            try peer.send(.request(invite))
            retransmissions += 1
            nextRetransmit[callID] = (now + timer.interval * 2, timer.interval * 2)
        }
    }
    for callID in answered { _ = try? await channel.perform(.decline(contactID: callID)) }
    await channel.stopListening()
    print(
        "burst of \(count) INVITEs over \(transport.rawValue.uppercased()): \(retransmissions) retransmissions (timer A), \(count - answered.count) never rang"
    )
    print(ringing.report(warmUp: 0))
}
