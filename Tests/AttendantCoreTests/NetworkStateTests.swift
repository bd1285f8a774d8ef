import Testing

@testable import AttendantCore

/// rtnetlink messages as the kernel writes them (`rtnetlink(7)`), read into what the network gained.
@Suite struct NetworkStateTests {
    /// `struct nlmsghdr` around `body`.
    static func message(_ type: UInt16, _ body: [UInt8]) -> [UInt8] {
        let length = UInt32(16 + body.count)
        var bytes = withUnsafeBytes(of: length.littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init)
        bytes += [0, 0] + [UInt8](repeating: 0, count: 8) + body
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = withUnsafeBytes(of: UInt16(4 + value.count).littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// `struct ifinfomsg`.
    static func link(_ index: UInt32, flags: UInt32, deleted: Bool = false) -> [UInt8] {
        Self.message(deleted ? 17 : 16, [0, 0, 1, 0] + Self.u32(index) + Self.u32(flags) + Self.u32(0))
    }

    /// `struct ifaddrmsg` with IFA_LOCAL (IPv4) or IFA_ADDRESS (IPv6).
    static func address(_ index: UInt32, _ bytes: [UInt8], flags: UInt8 = 0, scope: UInt8 = 0, deleted: Bool = false) -> [UInt8] {
        let family: UInt8 = bytes.count == 4 ? 2 : 10
        return Self.message(deleted ? 21 : 20, [family, 24, flags, scope] + Self.u32(index) + Self.attribute(bytes.count == 4 ? 2 : 1, bytes))
    }

    /// `struct rtmsg` for a unicast route in the main table, with RTA_OIF and RTA_GATEWAY.
    static func route(_ index: UInt32, destinationLength: UInt8 = 0, gateway: [UInt8], deleted: Bool = false) -> [UInt8] {
        let header: [UInt8] = [2, destinationLength, 0, 0, 254, 3, 0, 1] + Self.u32(0)
        return Self.message(deleted ? 25 : 24, header + Self.attribute(4, Self.u32(index)) + Self.attribute(5, gateway))
    }

    static let upAndRunning: UInt32 = 0x1 | 0x40 | 0x1000  // IFF_UP | IFF_RUNNING | IFF_MULTICAST

    static func apply(_ state: inout NetworkState, _ messages: [UInt8]...) -> [String] {
        var ended = false
        return state.apply(messages.flatMap { $0 }, ended: &ended)?.what ?? []
    }

    @Test func whatAppearsIsNewsAndWhatRepeatsOrGoesIsNot() {
        var state = NetworkState()
        let lo = Self.link(1, flags: 0x1 | 0x8 | 0x40)
        #expect(Self.apply(&state, lo, Self.address(1, [127, 0, 0, 1])).isEmpty, "the loopback link is no network")

        #expect(Self.apply(&state, Self.link(2, flags: 0x1 | 0x1000)).isEmpty, "up without a carrier is not running")
        let plugged = Self.apply(
            &state,
            Self.link(2, flags: Self.upAndRunning),
            Self.address(2, [192, 168, 1, 20]),
            Self.route(2, gateway: [192, 168, 1, 1]),
            Self.route(2, destinationLength: 24, gateway: [192, 168, 1, 1])
        )
        #expect(plugged == ["link 2 up", "address 192.168.1.20 on link 2", "default route via 192.168.1.1 on link 2"])

        // The kernel repeats what it knows (a link's other attributes, an IPv6 lifetime renewed).
        #expect(Self.apply(&state, Self.link(2, flags: Self.upAndRunning), Self.address(2, [192, 168, 1, 20])).isEmpty)

        // Going down, going away: nothing to retry until something comes back.
        #expect(Self.apply(&state, Self.link(2, flags: 0x1), Self.route(2, gateway: [192, 168, 1, 1], deleted: true)).isEmpty)
        #expect(
            Self.apply(&state, Self.link(2, flags: Self.upAndRunning), Self.route(2, gateway: [192, 168, 1, 1])) == [
                "link 2 up", "default route via 192.168.1.1 on link 2",
            ]
        )

        // IPv6: a link-local address reaches no server; a global one counts once its duplicate address
        // detection is over (the kernel announces it tentative first, then again).
        let linkLocal: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [7]
        #expect(Self.apply(&state, Self.address(2, linkLocal, scope: 253)).isEmpty)
        let v6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [5]
        #expect(Self.apply(&state, Self.address(2, v6, flags: 0x40)).isEmpty, "tentative")
        #expect(Self.apply(&state, Self.address(2, v6)) == ["address 2001:db8:0:0:0:0:0:5 on link 2"])

        // A link removed takes its addresses along: the same address on a new link is news.
        _ = Self.apply(&state, Self.link(2, flags: 0, deleted: true))
        #expect(
            Self.apply(&state, Self.link(3, flags: Self.upAndRunning), Self.address(3, [192, 168, 1, 20])) == [
                "link 3 up", "address 192.168.1.20 on link 3",
            ]
        )
    }

    @Test func aDumpsEndAndTruncatedOrStrangeMessagesAreSafe() {
        var state = NetworkState()
        var ended = false
        #expect(state.apply(Self.message(3, [0, 0, 0, 0]), ended: &ended) == nil)
        #expect(ended)
        // A length beyond the datagram, a body too short, an attribute running past its message.
        var truncated = Self.link(4, flags: Self.upAndRunning)
        truncated[0] = 200
        #expect(Self.apply(&state, truncated).isEmpty)
        #expect(Self.apply(&state, Self.message(16, [0, 0])).isEmpty)
        var broken = Self.address(4, [10, 0, 0, 1])
        broken[24] = 0xFF
        #expect(Self.apply(&state, broken).isEmpty)
        #expect(Self.apply(&state, [1, 2, 3]).isEmpty)
        #expect(Self.apply(&state, []).isEmpty)
    }
}
