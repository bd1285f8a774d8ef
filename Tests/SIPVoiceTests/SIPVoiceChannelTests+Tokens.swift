import AttendantPluginAPI
import AttendantPluginTestKit
import Testing

// The channel's token, as the host's `tokenState()` reports it: no source is a configuration problem, a
// source without a valid token a sign-in problem.
extension SIPVoiceChannelTests {
    @Test func withoutATokenSourceBearerIsAConfigurationError() async throws {
        let rig = try Self.rig(token: nil)
        let error = await #expect(throws: ChannelError.self) { try await rig.channel.listen() }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("needs a token, and the channel has no token source") == true)
    }

    @Test func aTokenSourceWithoutAValidTokenIsASignInProblemNotAConfigurationOne() async throws {
        let rig = try Self.rig(token: nil)
        rig.host.setTokenUnavailable(reason: "the token from token file /tmp/t expired at 2026-11-24T10:00:00Z")
        let error = await #expect(throws: ChannelError.self) { try await rig.channel.listen() }
        #expect(error?.code == .authentication)
        #expect(
            error?.message.contains("needs a valid token, and the channel's token source has none: the token from token file /tmp/t expired") == true,
            "\(String(describing: error))"
        )
        #expect(error?.message.contains("no token source") == false)
    }
}
