import CSystemd

/// A signal that arrived.
public struct BusSignal: Sendable, Hashable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [BusValue]

    init(_ message: OpaquePointer) throws(BusError) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        self.sender = text(sd_bus_message_get_sender(message))
        self.path = text(sd_bus_message_get_path(message))
        self.interface = text(sd_bus_message_get_interface(message))
        self.member = text(sd_bus_message_get_member(message))
        self.arguments = try BusMessageCoding.readAll(message)
    }
}
