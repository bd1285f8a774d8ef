/// What the kernel says about the machine's network, read from rtnetlink messages (`rtnetlink(7)`,
/// `<linux/rtnetlink.h>`): the links that are up and running, the addresses, and the default routes,
/// loopback left out. ``apply(_:)`` reads one datagram and says whether the network gained something (a
/// link came up, an address or a default route appeared): the moment to retry, since that is how a network
/// comes back or changes. A link going down or an address going away only shrinks the state: a channel finds
/// out for itself, and nothing can be retried until something comes back.
///
/// The kernel repeats a known address or route (an IPv6 address's lifetime renewed by each router
/// advertisement, a link's attributes changing): only what was not there before is news.
package struct NetworkState: Sendable, Equatable {
    /// The running links by index.
    private(set) var runningLinks: Set<Int32> = []
    private(set) var loopbackLinks: Set<Int32> = []
    /// Addresses as (link, family, bytes).
    private(set) var addresses: Set<[UInt8]> = []
    /// Default routes as (family, table, link, gateway).
    private(set) var defaultRoutes: Set<[UInt8]> = []

    /// What a datagram changed, for the log: `link 3 up`, `address 10.0.0.2 on link 3`, `default route via
    /// 10.0.0.1 on link 3`.
    package struct Gain: Sendable, Equatable, CustomStringConvertible {
        package var what: [String]
        package var description: String { self.what.joined(separator: ", ") }
    }

    // Message types and flags (`<linux/rtnetlink.h>`, `<linux/netlink.h>`, `<linux/if.h>`); part of the
    // kernel's ABI.
    static let done: UInt16 = 3  // NLMSG_DONE
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25
    static let up: UInt32 = 0x1, loopback: UInt32 = 0x8, running: UInt32 = 0x40  // IFF_UP, IFF_LOOPBACK, IFF_RUNNING
    static let addressAttribute: UInt16 = 1, localAttribute: UInt16 = 2  // IFA_ADDRESS, IFA_LOCAL
    static let outputLinkAttribute: UInt16 = 4, gatewayAttribute: UInt16 = 5, tableAttribute: UInt16 = 15  // RTA_OIF, RTA_GATEWAY, RTA_TABLE
    static let unicastRoute: UInt8 = 1  // RTN_UNICAST
    static let linkScope: UInt8 = 253  // RT_SCOPE_LINK; RT_SCOPE_HOST is 254
    static let tentative: UInt8 = 0x40  // IFA_F_TENTATIVE

    /// Reads every message in `datagram`; returns what the network gained, or nil. A dump's end
    /// (`NLMSG_DONE`) sets `ended`.
    mutating func apply(_ datagram: [UInt8], ended: inout Bool) -> Gain? {
        var gained: [String] = []
        var offset = 0
        while offset + 16 <= datagram.count {
            let length = Int(Self.u32(datagram, offset))
            let type = Self.u16(datagram, offset + 4)
            guard length >= 16, offset + length <= datagram.count else { break }
            let body = Array(datagram[(offset + 16)..<(offset + length)])
            switch type {
            case Self.done, Self.error: ended = true
            case Self.newLink, Self.deleteLink: gained += self.link(body, deleted: type == Self.deleteLink)
            case Self.newAddress, Self.deleteAddress: gained += self.address(body, deleted: type == Self.deleteAddress)
            case Self.newRoute, Self.deleteRoute: gained += self.route(body, deleted: type == Self.deleteRoute)
            default: break
            }
            offset += (length + 3) & ~3
        }
        return gained.isEmpty ? nil : Gain(what: gained)
    }

    /// `struct ifinfomsg`: family, pad, type (u16), index (i32), flags (u32), change (u32).
    private mutating func link(_ body: [UInt8], deleted: Bool) -> [String] {
        guard body.count >= 16 else { return [] }
        let index = Int32(bitPattern: Self.u32(body, 4))
        let flags = Self.u32(body, 8)
        if flags & Self.loopback != 0 {
            self.loopbackLinks.insert(index)
            return []
        }
        let isRunning = !deleted && flags & Self.up != 0 && flags & Self.running != 0
        if isRunning {
            return self.runningLinks.insert(index).inserted ? ["link \(index) up"] : []
        }
        self.runningLinks.remove(index)
        if deleted {
            self.addresses = self.addresses.filter { Self.linkOf($0) != index }
            self.defaultRoutes = self.defaultRoutes.filter { Self.linkOf($0) != index }
        }
        return []
    }

    /// `struct ifaddrmsg`: family, prefix length, flags, scope (u8 each), index (u32); then attributes.
    /// Only an address a server can be reached from counts: of global (or site) scope, not a link-local
    /// one (`fe80::/10`, `169.254.0.0/16`) nor the host's own, and an IPv6 address once its duplicate
    /// address detection is over (not `IFA_F_TENTATIVE`).
    private mutating func address(_ body: [UInt8], deleted: Bool) -> [String] {
        guard body.count >= 8 else { return [] }
        let family = body[0]
        let index = Int32(bitPattern: Self.u32(body, 4))
        guard !self.loopbackLinks.contains(index), body[3] < Self.linkScope else { return [] }
        if !deleted, body[2] & Self.tentative != 0 { return [] }
        let attributes = Self.attributes(body, from: 8)
        guard let bytes = attributes[Self.localAttribute] ?? attributes[Self.addressAttribute] else { return [] }
        let key = Self.key(link: index, [family], bytes)
        if deleted {
            self.addresses.remove(key)
            return []
        }
        return self.addresses.insert(key).inserted ? ["address \(Self.text(bytes)) on link \(index)"] : []
    }

    /// `struct rtmsg`: family, destination length, source length, tos, table, protocol, scope, type (u8
    /// each), flags (u32); then attributes. Only unicast default routes (destination length 0) count.
    private mutating func route(_ body: [UInt8], deleted: Bool) -> [String] {
        guard body.count >= 12, body[1] == 0, body[7] == Self.unicastRoute else { return [] }
        let attributes = Self.attributes(body, from: 12)
        let index = attributes[Self.outputLinkAttribute].map { Int32(bitPattern: Self.u32($0, 0)) } ?? 0
        guard !self.loopbackLinks.contains(index) else { return [] }
        let table = attributes[Self.tableAttribute].map { Self.u32($0, 0) } ?? UInt32(body[4])
        let gateway = attributes[Self.gatewayAttribute] ?? []
        let key = Self.key(link: index, [body[0]] + withUnsafeBytes(of: table.littleEndian, Array.init), gateway)
        if deleted {
            self.defaultRoutes.remove(key)
            return []
        }
        guard self.defaultRoutes.insert(key).inserted else { return [] }
        return [gateway.isEmpty ? "default route on link \(index)" : "default route via \(Self.text(gateway)) on link \(index)"]
    }

    // MARK: Reading

    /// The attributes after `from`: `struct rtattr` (length u16, type u16), each padded to 4 bytes.
    static func attributes(_ body: [UInt8], from start: Int) -> [UInt16: [UInt8]] {
        var found: [UInt16: [UInt8]] = [:]
        var offset = start
        while offset + 4 <= body.count {
            let length = Int(Self.u16(body, offset))
            guard length >= 4, offset + length <= body.count else { break }
            found[Self.u16(body, offset + 2) & 0x3FFF] = Array(body[(offset + 4)..<(offset + length)])
            offset += (length + 3) & ~3
        }
        return found
    }

    /// Netlink is in the host's byte order; this is little-endian Linux (x86-64, arm64).
    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    private static func key(link: Int32, _ head: [UInt8], _ tail: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: link.littleEndian, Array.init) + head + tail
    }

    private static func linkOf(_ key: [UInt8]) -> Int32 { Int32(bitPattern: Self.u32(key, 0)) }

    /// An IPv4 or IPv6 address as text (IPv6 in full hexadecimal groups).
    static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return bytes.map { String($0, radix: 16) }.joined(separator: ":") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
