import AttendantPluginAPI
import Testing

@Suite struct ChannelSettingsTests {
    let settings = ChannelSettings(
        [
            "interval": .string("30s"),
            "count": .integer(3),
            "name": .integer(5),
            "typo-key": .bool(true),
        ],
        file: "/home/ada/.config/attendant/attendant.toml",
        scope: "[channel.loopback] of channel \"desk\"",
        lines: ["name": 12, "typo-key": 14]
    )

    @Test func typedAccessorsReadValues() throws {
        #expect(try self.settings.duration("interval") == .seconds(30))
        #expect(try self.settings.integer("count") == 3)
        #expect(try self.settings.string("absent") == nil)
    }

    @Test func wrongTypeNamesFileLineKeyAndExpectation() {
        #expect {
            try self.settings.string("name")
        } throws: { error in
            "\(error)"
                == "/home/ada/.config/attendant/attendant.toml:12: key \"name\" in [channel.loopback] of channel \"desk\": expected a string, found the integer 5"
        }
    }

    @Test func unknownKeysAreThoseNeverAskedFor() throws {
        _ = try self.settings.duration("interval")
        _ = try self.settings.integer("count")
        _ = try? self.settings.string("name")
        _ = try self.settings.bool("enabled")
        #expect(self.settings.unknownKeys == ["typo-key"])
        let errors = self.settings.unknownKeyErrors(plugin: "loopback")
        #expect(
            errors.map(\.description) == [
                "/home/ada/.config/attendant/attendant.toml:14: key \"typo-key\" in [channel.loopback] of channel \"desk\": unknown key; the loopback plugin knows \"count\", \"enabled\", \"interval\", \"name\""
            ]
        )
    }

    @Test(arguments: [
        (SettingValue.integer(30), Duration.seconds(30)),
        (.double(1.5), .milliseconds(1500)),
        (.string("500ms"), .milliseconds(500)),
        (.string("10m"), .seconds(600)),
        (.string("1h"), .seconds(3600)),
        (.string("2.5s"), .milliseconds(2500)),
    ])
    func durationsParse(value: SettingValue, expected: Duration) {
        #expect(ChannelSettings.parseDuration(value) == expected)
    }

    @Test(arguments: [SettingValue.integer(-1), .string("soon"), .string("10"), .string("1e3s"), .string("-5s"), .bool(true)])
    func badDurationsAreRejected(value: SettingValue) {
        #expect(ChannelSettings.parseDuration(value) == nil)
    }

    /// Found by the toml fuzz target: `keepalive-interval = "2222…205m"` (70 digits) stopped attendantd on
    /// `--check-config` and at start (a Double past Int64.max made an Int64). Durations past 100 years are
    /// refused as not durations: beyond that, sleeping for one would overflow its nanoseconds.
    @Test(arguments: [
        SettingValue.string(String(repeating: "2", count: 68) + "05m"),
        .double(1e300),
        .double(9.3e15),
        .string("9300000000000000s"),
        .integer(Int64.max),
        .integer(3_155_760_001),
        .string("876601h"),
    ])
    func durationsPastAHundredYearsAreRejected(value: SettingValue) {
        #expect(ChannelSettings.parseDuration(value) == nil)
    }

    @Test func aHundredYearsIsTheLongestDuration() {
        #expect(ChannelSettings.parseDuration(.integer(3_155_760_000)) == .seconds(3_155_760_000))
        #expect(ChannelSettings.parseDuration(.string("876600h")) == .seconds(3_155_760_000))
        // And one that long sleeps without overflowing its nanoseconds.
        #expect(Duration.seconds(3_155_760_000).components.seconds * 1_000_000_000 < Int64.max)
    }

    @Test func unixTimeFormatsAsISO8601() {
        #expect(UnixTime(secondsSince1970: 0).description == "1970-01-01T00:00:00Z")
        #expect(UnixTime(secondsSince1970: 1_795_000_000).description == "2026-11-18T11:06:40Z")
        #expect(UnixTime(secondsSince1970: 951_782_400).description == "2000-02-29T00:00:00Z")
    }

    @Test func tokenDescriptionNeverShowsTheValue() {
        let token = ChannelToken(value: "eyJhbGciOiJIUzI1NiJ9.secret", expiresAt: UnixTime(secondsSince1970: 0))
        #expect(!"\(token)".contains("secret"))
        #expect(!String(reflecting: token).contains("secret"))
    }
}
