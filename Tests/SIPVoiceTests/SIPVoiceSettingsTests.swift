import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

/// Settings: every mistake is named with its key and what to write instead.
@Suite struct SIPVoiceSettingsTests {
    static func error(_ values: [String: SettingValue]) -> String? {
        var all: [String: SettingValue] = ["registrar": .string("sip:pbx.example.org"), "address-of-record": .string("sip:alice@example.org")]
        all.merge(values) { $1 }
        for (key, value) in all where value == .string("-") { all[key] = nil }
        do {
            _ = try SIPVoicePlugin.factory.makeChannel(settings: ChannelSettings(all, scope: "[channel.sip-voice]"), host: InMemoryChannelHost())
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        arguments: [
            (
                ["registrar": "-"],
                "registrar\" in [channel.sip-voice]: is missing; give the registrar's SIP URI, such as \"sip:pbx.example.org;transport=tcp\""
            ),
            (["registrar": "pbx.example.org"], "is not a SIP URI"),
            (
                ["registrar": "sips:pbx.example.org;transport=udp"],
                "a sips: registrar is reached over TLS, not transport \"udp\"; leave transport out"
            ),
            (["registrar": "sip:pbx.example.org;transport=sctp"], "transport \"sctp\" is not supported; use udp, tcp or tls"),
            (["registrar": "tel:+441234"], "a registrar is a sip: or sips: URI, not tel:"),
            (["address-of-record": "sip:example.org"], "needs a user part: sip:USER@DOMAIN"),
            (["authentication": "kerberos"], "expected one of \"bearer\", \"digest\", \"ephemeral\", \"none\", found \"kerberos\""),
            (["outbound": "true"], "RFC 5626 keep-alives need a TCP or TLS registrar here"),
            (["answer-command": "relative"], "must start with an absolute program path"),
            (["softphone-contact": "tel:+441234"], "is not a sip: or sips: address"),
            (
                ["accept": "ring"],
                "expected \"redirect\" (302 to the softphone) or \"softphone\" (a softphone registered on the same address of record answers), found \"ring\""
            ),
            (["accept": "softphone"], "\"softphone\" needs answer-command: the command that tells the softphone to answer"),
            (
                ["accept": "softphone", "answer-command": "/bin/true", "softphone-contact": "<sip:me@127.0.0.1:5070>"],
                "softphone-contact\" in [channel.sip-voice]: is where accept = \"redirect\" sends calls"
            ),
        ] as [([String: String], String)]
    )
    func refusesBadSettings(values: [String: String], message: String) {
        var settings: [String: SettingValue] = [:]
        for (key, value) in values {
            switch (key, value) {
            case ("outbound", "true"): settings[key] = .bool(true)
            case ("answer-command", let program): settings[key] = .array([.string(program)])
            default: settings[key] = .string(value)
            }
        }
        let error = Self.error(settings)
        #expect(error?.contains(message) == true, "\(String(describing: error))")
    }

    /// SIP over TLS (RFC 3261 section 26.2): a sips: registrar, or transport=tls; sips: with transport=tcp
    /// means TLS over TCP (RFC 5630 section 3.2.2). These were refused before ("no TLS yet").
    @Test(arguments: [
        "sips:pbx.example.org", "sips:pbx.example.org:5071;transport=tcp", "sip:pbx.example.org;transport=tls", "sip:[2001:db8::1];transport=TLS",
    ])
    func tlsRegistrarsAreAccepted(registrar: String) {
        #expect(Self.error(["registrar": .string(registrar)]) == nil)
    }

    @Test func goodSettingsAreAccepted() {
        #expect(Self.error([:]) == nil)
        #expect(
            Self.error(["registrar": .string("sip:127.0.0.1:5070;transport=tcp"), "ring-timeout": .string("45s"), "register-expires": .integer(900)])
                == nil
        )
    }
}
