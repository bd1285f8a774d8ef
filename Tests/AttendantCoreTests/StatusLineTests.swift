import AttendantCore
import Testing

@Suite struct StatusLineTests {
    @Test func allListening() {
        let statuses = ["desk", "support"].map { ChannelStatus(name: $0, plugin: "loopback", state: .listening) }
        #expect(StatusLine.summarize(statuses) == "2 channels listening")
        #expect(StatusLine.summarize([statuses[0]]) == "desk listening")
        #expect(StatusLine.summarize([]) == "no channels configured")
    }

    @Test func problemsAreNamedWithTheirReason() {
        let statuses = [
            ChannelStatus(name: "desk", plugin: "loopback", state: .listening),
            ChannelStatus(name: "phone", plugin: "sip-voice", state: .failed, detail: "plugin \"sip-voice\" not found"),
        ]
        #expect(StatusLine.summarize(statuses) == "desk listening; phone failed (plugin \"sip-voice\" not found)")
    }
}
