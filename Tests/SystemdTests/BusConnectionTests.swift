import Foundation
import Glibc
import Systemd
import TestSupport
import Testing

/// The sd-bus binding against a real `dbus-daemon`.
@Suite(.timeLimit(.minutes(2))) struct BusConnectionTests {
    static let interface = "org.attendant.Test1"
    static let path = "/org/attendant/Test1"

    /// An object whose methods echo, fail, and answer late.
    static func testObject() -> BusObject {
        BusObject(
            path: path,
            interface: interface,
            methods: [
                .init("Echo", inputs: [.init("value", "v")], outputs: [.init("value", "v")]) { arguments in arguments },
                .init("Describe", inputs: [.init("options", "a{sv}"), .init("numbers", "ai")], outputs: [.init("text", "s")]) { arguments in
                    let options = arguments[0].stringDictionary ?? [:]
                    let numbers = arguments[1].elements?.compactMap(\.int64) ?? []
                    let keys = options.keys.sorted().map { "\($0)=\(options[$0]!)" }.joined(separator: ",")
                    return [.string("\(keys);\(numbers.reduce(0, +))")]
                },
                .init("Fail", inputs: [.init("why", "s")]) { arguments throws(BusMethodError) in
                    throw BusMethodError(name: "org.attendant.Error.Test", message: arguments[0].string ?? "")
                },
                .init("Later", outputs: [.init("done", "b")]) { _ in
                    try? await Task.sleep(for: .milliseconds(50))
                    return [.boolean(true)]
                },
            ],
            signals: [.init("Happened", [.init("what", "s"), .init("details", "a{sv}")])]
        )
    }

    @Test func methodsSignaturesAndErrorsRoundTrip() async throws {
        let bus = try await PrivateBus()
        let server = try await BusConnection.open(.custom(bus.address))
        let client = try await BusConnection.open(.custom(bus.address))
        #expect(try await server.requestName("org.attendant.Test") == .acquired)
        try await server.export(Self.testObject())

        func call(_ member: String, _ arguments: [BusValue]) async throws(BusError) -> [BusValue] {
            try await client.call(destination: "org.attendant.Test", path: Self.path, interface: Self.interface, member: member, arguments: arguments)
        }
        let nested: BusValue = .variant(
            .structure([
                .string("héllo <b>&"), .uint32(7), .boolean(true), .double(1.5), .int64(-3),
                .array(element: "s", []),
                .vardict(["a": .string("x"), "n": .int32(2)]),
            ])
        )
        #expect(try await call("Echo", [nested]) == [nested])
        let described = try await call(
            "Describe",
            [.vardict(["b": .boolean(false), "a": .uint32(1)]), .array(element: "i", [.int32(2), .int32(3)])]
        )
        #expect(described == [.string("a=1,b=false;5")])

        await #expect(throws: BusError.reply(name: "org.attendant.Error.Test", message: "because")) {
            try await call("Fail", [.string("because")])
        }
        // sd-bus checks signatures before the handler runs.
        await #expect(throws: BusError.self) { try await call("Describe", [.string("wrong")]) }
        #expect(try await call("Later", []) == [.boolean(true)])

        await server.close()
        await client.close()
    }

    @Test func introspectionNamesTheArguments() async throws {
        let bus = try await PrivateBus()
        let server = try await BusConnection.open(.custom(bus.address))
        _ = try await server.requestName("org.attendant.Test")
        try await server.export(Self.testObject())
        let (status, output) = try await run(
            "/usr/bin/busctl",
            ["--address=\(bus.address)", "introspect", "org.attendant.Test", Self.path, Self.interface]
        )
        #expect(status == 0, "\(output)")
        #expect(output.contains(".Describe") && output.contains("a{sv}ai"))
        #expect(output.contains(".Happened") && output.contains("signal"))
        let (_, xml) = try await run(
            "/usr/bin/busctl",
            ["--address=\(bus.address)", "--xml-interface", "introspect", "org.attendant.Test", Self.path]
        )
        #expect(xml.contains(#"<arg type="a{sv}" name="options" direction="in"/>"#), "\(xml)")
        #expect(xml.contains(#"<arg type="s" name="what"/>"#), "\(xml)")
        await server.close()
    }

    @Test func signalsArriveAndNamesAreExclusive() async throws {
        let bus = try await PrivateBus()
        let server = try await BusConnection.open(.custom(bus.address))
        let client = try await BusConnection.open(.custom(bus.address))
        #expect(try await server.requestName("org.attendant.Test") == .acquired)
        #expect(try await client.requestName("org.attendant.Test") == .taken(ownerPID: UInt32(getpid())))
        #expect(try await client.nameOwner("org.attendant.Test") != nil)
        #expect(try await client.nameOwner("org.attendant.Nobody") == nil)

        let signals = try await client.signals(BusMatchRule(interface: Self.interface, member: "Happened"))
        // The match is installed asynchronously: a round trip through the bus makes sure it is in place.
        _ = try await client.nameOwner("org.attendant.Test")
        try await server.export(Self.testObject())
        let sent = await server.emit(
            path: Self.path,
            interface: Self.interface,
            member: "Happened",
            arguments: [.string("ring"), .vardict(["n": .uint32(1)])]
        )
        #expect(sent == nil)
        var iterator = signals.makeAsyncIterator()
        let signal = try #require(await iterator.next())
        #expect(signal.member == "Happened" && signal.path == Self.path)
        #expect(signal.arguments.first == .string("ring"))
        #expect(signal.arguments.last?.stringDictionary?["n"] == .uint32(1))
        await server.close()
        await client.close()
    }

    @Test func theBusGoingAwayFailsPendingCallsAndRunsCloseHandlers() async throws {
        let bus = try await PrivateBus()
        let server = try await BusConnection.open(.custom(bus.address))
        let client = try await BusConnection.open(.custom(bus.address))
        _ = try await server.requestName("org.attendant.Test")
        try await server.export(
            BusObject(
                path: Self.path,
                interface: Self.interface,
                methods: [
                    .init("Never") { _ in
                        try? await Task.sleep(for: .seconds(3600))
                        return []
                    }
                ],
                signals: []
            )
        )
        let closed = AsyncStream<Void>.makeStream()
        client.onClose { closed.continuation.yield() }
        let signals = try await client.signals(BusMatchRule(interface: Self.interface))
        let pending = Task { () throws(BusError) in
            try await client.call(destination: "org.attendant.Test", path: Self.path, interface: Self.interface, member: "Never")
        }
        try await Task.sleep(for: .milliseconds(100))
        bus.stop()
        await #expect(throws: BusError.self) { _ = try await pending.value }
        var closes = closed.stream.makeAsyncIterator()
        #expect(await closes.next() != nil)
        for await _ in signals {}  // finishes instead of hanging
        await #expect(throws: BusError.disconnected) {
            _ = try await client.call(destination: "org.freedesktop.DBus", path: "/", interface: "org.freedesktop.DBus", member: "GetId")
        }
    }
}
