import AttendantCore
import Testing

/// The `[metrics]` table.
@Suite struct MetricsConfigurationTests {
    let file = "/etc/attendant/attendant.toml"

    @Test func noEndpointByDefault() throws {
        #expect(try AttendantConfiguration(toml: "", file: self.file).metrics.listen == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464),
        ("[::1]:9100", "::1", 9100),
        ("localhost:8080", "localhost", 8080),
    ])
    func anAddressAndPort(text: String, host: String, port: Int) throws {
        let listen = try #require(try AttendantConfiguration(toml: "[metrics]\nlisten = \"\(text)\"\n", file: self.file).metrics.listen)
        #expect(listen == MetricsSettings.Address(host: host, port: port))
        #expect(listen.description == text)
    }

    @Test(arguments: ["9464", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", ":9464", "::1:9464", "[::1]9464", "127.0.0.1:+80"])
    func notAnAddressAndPortSaysWhatIsExpected(text: String) {
        #expect {
            try AttendantConfiguration(toml: "[metrics]\n\nlisten = \"\(text)\"\n", file: self.file)
        } throws: { error in
            "\(error)"
                == "\(self.file):3: key \"listen\" in [metrics]: expected an address and port such as \"127.0.0.1:9464\" or \"[::1]:9464\", found \"\(text)\""
        }
    }

    @Test func anUnknownKeyNamesTheKnownOne() {
        #expect {
            try AttendantConfiguration(toml: "[metrics]\nport = 9464\n", file: self.file)
        } throws: { error in
            "\(error)" == "\(self.file):2: key \"port\" in [metrics]: unknown key; [metrics] takes \"listen\""
        }
    }
}
