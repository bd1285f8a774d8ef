// INVITE on the wire → incoming-contact event, and INVITE → 180 Ringing: how fast the SIPVoice channel
// rings, measured in one process.
//
//   swift run -c release attendant-invite-latency [calls] [udp|tcp|both] [pause-ms]     (default 2000 udp 0)
//   swift run -c release attendant-invite-latency burst [count] [udp|tcp|both]          (default 200 udp)
//
// The benchmark is registrar and caller at once, on one plain socket on 127.0.0.1 (Peer): it answers the
// channel's REGISTER with 200, then sends INVITEs one at a time to the Contact the channel registered,
// from the same socket, as a proxy relays them. The channel is the real plugin (SIPVoicePluginFactory) with
// a host that notes the CLOCK_MONOTONIC time of each incoming-contact event. Per call, both figures run
// from the moment the INVITE's sendto()/send() returned: to the event being emitted, and to the 180
// arriving back at the caller's socket. Each call is then declined (603, via perform(.decline)) and the 603
// acknowledged before the next INVITE goes out, after `pause-ms` (0: at once). The first 100 calls warm up
// and are not counted. Over UDP a declined call stays in the channel until its Timer I (T4, 5 s) fires, so
// back-to-back calls keep thousands of finished calls there; a pause keeps that number to what a phone sees.
import AttendantPluginAPI
import Glibc
import SIPCore
import SIPVoice

var arguments = Array(CommandLine.arguments.dropFirst())
let burstMode = arguments.first == "burst"
if burstMode { arguments.removeFirst() }
let calls = arguments.first.flatMap(Int.init) ?? (burstMode ? 200 : 2000)
let transports: [Peer.Transport] =
    switch arguments.dropFirst().first ?? "udp" {
    case "tcp": [.tcp]
    case "both": [.udp, .tcp]
    default: [.udp]
    }
let pause = arguments.dropFirst(2).first.flatMap(Int.init) ?? 0
let warmUp = 100

/// Answers the channel's first REGISTER with 200 (its Contact echoed with `expires=600`); returns where
/// the channel registered.
func acceptRegistration(on peer: Peer) throws(BenchError) -> SIPURI {
    guard case .request(let register) = try peer.receive(), register.method == .register else {
        throw BenchError("expected the channel's REGISTER first")
    }
    guard let contact = register.headers[.contact], let target = try? register.headers.contacts.first?.uri else {
        throw BenchError("the channel's REGISTER has no Contact")
    }
    let extra: SIPHeaders = [(.contact, contact + ";expires=600")]
    try peer.send(.response(.answering(register, statusCode: 200, toTag: "registrar", extraHeaders: extra)))
    return target
}

/// Receives until a response to `invite` with `statusCode` (without one: any final response) arrives.
func awaitResponse(to invite: SIPRequest, on peer: Peer, statusCode: Int? = nil) throws(BenchError) -> SIPResponse {
    let callID = invite.headers[.callID]
    while true {
        guard case .response(let response) = try peer.receive(), response.headers[.callID] == callID else { continue }
        if statusCode.map({ response.statusCode == $0 }) ?? response.isFinal { return response }
    }
}

/// Registers a channel over `transport` and rings it `calls + warmUp` times; prints both figures.
func measure(over transport: Peer.Transport) async throws {
    let peer = try Peer(transport)
    let host = TimingHost()
    let settings = ChannelSettings([
        "registrar": .string(peer.registrarURI),
        "address-of-record": .string("sip:bench@127.0.0.1"),
        "authentication": .string("none"),
        "outbound": .bool(false),
    ])
    let channel = try SIPVoicePluginFactory().makeChannel(settings: settings, host: host)
    let listening = Task { try await channel.listen() }
    var caller = Caller(peer: peer, target: try acceptRegistration(on: peer))
    try await listening.value

    var toEvent = Figure("INVITE sent → incoming-contact event (\(transport.rawValue.uppercased()))", capacity: calls)
    var toRinging = Figure("INVITE sent → 180 Ringing received (\(transport.rawValue.uppercased()))", capacity: calls)
    for number in 0..<(warmUp + calls) {
        let invite = caller.invite(number)
        let callID = invite.headers[.callID] ?? ""
        try peer.send(.request(invite))
        let sent = monotonicNow()
        _ = try awaitResponse(to: invite, on: peer, statusCode: 180)
        let ringing = monotonicNow()
        // The channel rings first and tells the host right after, on the same thread.
        guard let emitted = host.awaitEmission(of: callID) else {
            throw BenchError("call \(number) rang (180) but no incoming-contact event followed within a second")
        }
        if number >= warmUp {
            toEvent.add(emitted - sent)
            toRinging.add(ringing - sent)
        }
        _ = try await channel.perform(.decline(contactID: callID))
        let declined = try awaitResponse(to: invite, on: peer)
        guard declined.statusCode == 603 else { throw BenchError("call \(number): expected 603 after decline, got \(declined.statusCode)") }
        try peer.send(.request(caller.acknowledge(declined, to: invite)))
        if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
    }
    await channel.stopListening()
    if pause > 0 { print("(\(pause) ms between calls)") }
    print(toEvent.report(warmUp: warmUp))
    print(toRinging.report(warmUp: warmUp))
}

for transport in transports {
    do {
        if burstMode {
            try await burst(calls, over: transport)
            continue
        }
        try await measure(over: transport)
    } catch {
        print("attendant-invite-latency over \(transport.rawValue): \(error)")
        exit(1)
    }
}
