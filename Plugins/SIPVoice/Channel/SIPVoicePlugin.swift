public import AttendantPluginAPI

// The plugin's two entry symbols (see PluginExport).

@_cdecl("attendant_plugin_api_version")
public func attendantPluginAPIVersion() -> UInt32 {
    PluginExport.builtAgainstVersion()
}

@_cdecl("attendant_plugin_factory")
public func attendantPluginFactory() -> UnsafeMutableRawPointer {
    PluginExport.factory(SIPVoicePluginFactory())
}

/// The SIPVoice plugin: a SIP user agent that stays registered with a registrar and rings the desktop for
/// incoming calls, which it hands to a softphone (`302`) on Accept or refuses (`603`) on Decline.
///
/// Settings (`[channel.sip-voice]`):
/// - `registrar` (required): the registrar's SIP URI, `sip:HOST[:PORT][;transport=udp|tcp|tls]` or
///   `sips:HOST[:PORT]` (TLS, port 5061 by default; certificates are checked by the channel's
///   `tls-verify` and `tls-ca-file`);
/// - `address-of-record` (required): the address calls are made to, `sip:USER@DOMAIN`;
/// - `display-name`: shown in From and To;
/// - `authentication`: how the channel's token is used: `bearer` (default; `Authorization: Bearer`,
///   RFC 8898), `digest` (the token is the password of `username`), `ephemeral` (the token is the shared
///   secret of Kamailio-style time-limited credentials) or `none`;
/// - `username`: the Digest user (default: the user part of `address-of-record`);
/// - `ephemeral-lifetime` (default 1 h) and `ephemeral-hash` (`sha1`, `sha256`, `sha384`, `sha512`);
/// - `register-expires`: the binding lifetime to ask for (default 600 s: the keep-alive cycle);
/// - `max-expires`: the longest `Min-Expires` a `423` may ask for (default 1 day);
/// - `outbound`: RFC 5626 (instance, reg-id, CRLF keep-alives; default on for TCP and TLS);
/// - `instance-id`: the `+sip.instance` URN (default: made once and kept in the state store);
/// - `ring-timeout`: answer `480` and record a missed call after this long (default 30 s);
/// - `accept`: `redirect` (default: Accept answers `302`) or `softphone` (a softphone registered on the same
///   address of record rings beside this channel; Accept runs `answer-command` to make it answer and sends
///   no final response, the forking proxy cancelling this fork);
/// - `softphone-contact`: where Accept redirects a call (`302`);
/// - `answer-command` and `answer-timeout` (default 10 s): a program run on Accept that prints where to
///   redirect the call, or with `accept = "softphone"` tells the softphone to answer (exit status 0); it
///   gets `ATTENDANT_CALL_ID`, `ATTENDANT_CALLER_NAME`, `ATTENDANT_CALLER_URI`, `ATTENDANT_CALLEE_URI` and
///   `ATTENDANT_CHANNEL`.
///
/// Requests: `accept`, `decline`, and `registration` (what is registered where, as fields).
public final class SIPVoicePluginFactory: ChannelPluginFactory {
    public let name = "sip-voice"
    public let kind = ChannelKind.voice
    public let version = "1.0.0"

    public init() {}

    public func makeChannel(settings: ChannelSettings, host: any ChannelHost) throws -> any Channel {
        SIPVoiceChannel(configuration: try SIPVoiceConfiguration(settings), host: host)
    }
}
