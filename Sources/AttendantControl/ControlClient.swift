public import Systemd

/// The daemon's control API as typed calls: what `attendantctl` speaks.
///
/// ```swift
/// let client = try await ControlClient.connect()
/// for channel in try await client.channels() { print(channel.name, channel.state) }
/// ```
///
/// Every call throws ``ControlClientError``: `.notRunning` when nobody owns the bus name (also when the
/// daemon went away between calls), `.refused` with the daemon's error name and message, `.failed` for
/// the bus itself.
public struct ControlClient: Sendable {
    public let connection: BusConnection

    public init(connection: BusConnection) {
        self.connection = connection
    }

    /// Connects to `address` and, unless told otherwise, checks that the daemon owns its name there.
    public static func connect(
        _ address: BusConnection.Address = .session,
        requireDaemon: Bool = true
    ) async throws(ControlClientError) -> ControlClient {
        let connection: BusConnection
        do {
            connection = try await BusConnection.open(address, description: "attendantctl")
        } catch {
            throw .noBus(address, error)
        }
        let client = ControlClient(connection: connection)
        guard requireDaemon else { return client }
        guard try await client.daemonOwner() != nil else {
            await connection.close()
            throw .notRunning(address)
        }
        return client
    }

    /// The unique bus name of the running daemon, or nil when it is not running.
    public func daemonOwner() async throws(ControlClientError) -> String? {
        do {
            return try await self.connection.nameOwner(ControlInterface.busName)
        } catch {
            throw .call("GetNameOwner", error, on: self.connection.address)
        }
    }

    public func status() async throws(ControlClientError) -> StatusRecord {
        let reply = try await self.call(ControlInterface.Method.getStatus)
        guard let first = reply.first, let record = StatusRecord(first) else { throw .malformed(ControlInterface.Method.getStatus, reply) }
        return record
    }

    public func channels() async throws(ControlClientError) -> [ChannelRecord] {
        let member = ControlInterface.Method.listChannels
        let reply = try await self.call(member)
        guard let elements = reply.first?.elements else { throw .malformed(member, reply) }
        var records: [ChannelRecord] = []
        for element in elements {
            guard let record = ChannelRecord(element) else { throw .malformed(member, reply) }
            records.append(record)
        }
        return records
    }

    /// The newest `limit` contacts, newest first.
    public func contacts(limit: UInt32) async throws(ControlClientError) -> [ContactRecord] {
        let member = ControlInterface.Method.listContacts
        let reply = try await self.call(member, [.uint32(limit)])
        guard let elements = reply.first?.elements else { throw .malformed(member, reply) }
        var records: [ContactRecord] = []
        for element in elements {
            guard let record = ContactRecord(element) else { throw .malformed(member, reply) }
            records.append(record)
        }
        return records
    }

    /// Accepts a contact; without a channel the daemon finds the channel by the contact's id.
    public func accept(contact: String, channel: String? = nil) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.accept, [.string(channel ?? ""), .string(contact)])
    }

    public func decline(contact: String, channel: String? = nil) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.decline, [.string(channel ?? ""), .string(contact)])
    }

    public func renewToken(channel: String) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.renewToken, [.string(channel)])
    }

    /// Re-reads the configuration (like SIGHUP); returns the daemon's status line afterwards.
    public func reload() async throws(ControlClientError) -> String {
        let reply = try await self.call(ControlInterface.Method.reload)
        guard let status = reply.first?.string else { throw .malformed(ControlInterface.Method.reload, reply) }
        return status
    }

    /// The daemon's figures in the Prometheus text format.
    public func metrics() async throws(ControlClientError) -> String {
        let reply = try await self.call(ControlInterface.Method.getMetrics)
        guard let text = reply.first?.string else { throw .malformed(ControlInterface.Method.getMetrics, reply) }
        return text
    }

    public func setDoNotDisturb(_ on: Bool) async throws(ControlClientError) {
        _ = try await self.call(ControlInterface.Method.setDoNotDisturb, [.boolean(on)])
    }

    func call(_ member: String, _ arguments: [BusValue] = []) async throws(ControlClientError) -> [BusValue] {
        do {
            return try await self.connection.call(
                destination: ControlInterface.busName,
                path: ControlInterface.objectPath,
                interface: ControlInterface.interface,
                member: member,
                arguments: arguments
            )
        } catch {
            throw .call(member, error, on: self.connection.address)
        }
    }
}

// MARK: - Signals

extension ControlClient {
    /// The interface's signals, decoded; the stream ends when the connection closes or the iteration stops.
    ///
    /// The match is installed asynchronously: make one more call (``daemonOwner()``) before relying on
    /// seeing a signal that something else is about to send.
    public func signals() async throws(ControlClientError) -> AsyncCompactMapSequence<AsyncStream<BusSignal>, ControlSignal> {
        do {
            let rule = BusMatchRule(path: ControlInterface.objectPath, interface: ControlInterface.interface)
            return try await self.connection.signals(rule).compactMap(ControlSignal.init)
        } catch {
            throw .call("AddMatch", error, on: self.connection.address)
        }
    }

    /// Whether the daemon is running, each time that changes (the bus's `NameOwnerChanged` for our name).
    public func daemonRunningChanges() async throws(ControlClientError) -> AsyncCompactMapSequence<AsyncStream<BusSignal>, Bool> {
        do {
            let rule = BusMatchRule(
                sender: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "NameOwnerChanged",
                arg0: ControlInterface.busName
            )
            return try await self.connection.signals(rule).compactMap { signal in
                guard signal.arguments.count == 3, signal.arguments[0].string == ControlInterface.busName else { return nil }
                return signal.arguments[2].string?.isEmpty == false
            }
        } catch {
            throw .call("AddMatch", error, on: self.connection.address)
        }
    }
}

/// One of the interface's signals.
public enum ControlSignal: Sendable, Hashable {
    /// `ChannelEvent(s channel, s event, a{sv} details)`: every channel event.
    case channelEvent(channel: String, event: String, details: [String: BusValue])
    /// `ChannelStateChanged(s channel, s state, s detail)`.
    case channelStateChanged(channel: String, state: String, detail: String)
    /// `DoNotDisturbChanged(b on)`.
    case doNotDisturbChanged(Bool)

    /// Decodes a signal of ``ControlInterface/interface``; nil for other members or arguments.
    public init?(_ signal: BusSignal) {
        guard signal.interface == ControlInterface.interface else { return nil }
        let arguments = signal.arguments
        switch signal.member {
        case ControlInterface.Signal.channelEvent:
            guard arguments.count == 3, let channel = arguments[0].string, let event = arguments[1].string,
                let details = arguments[2].stringDictionary
            else { return nil }
            self = .channelEvent(channel: channel, event: event, details: details)
        case ControlInterface.Signal.channelStateChanged:
            guard arguments.count == 3, let channel = arguments[0].string, let state = arguments[1].string,
                let detail = arguments[2].string
            else { return nil }
            self = .channelStateChanged(channel: channel, state: state, detail: detail)
        case ControlInterface.Signal.doNotDisturbChanged:
            guard arguments.count == 1, let on = arguments[0].bool else { return nil }
            self = .doNotDisturbChanged(on)
        default:
            return nil
        }
    }
}
