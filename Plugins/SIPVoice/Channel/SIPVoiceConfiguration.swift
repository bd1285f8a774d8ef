import AttendantPluginAPI
import SIPCore

/// The settings of one SIPVoice channel (`[channel.sip-voice]`); see ``SIPVoicePluginFactory``.
struct SIPVoiceConfiguration: Sendable {
    var registrar: SIPURI
    var registrarHost: String
    var registrarPort: Int
    var transport: SIPTransport.Kind
    var addressOfRecord: SIPURI
    var displayName: String?
    /// How the channel's token becomes SIP credentials: `authentication`, `username` and the ephemeral
    /// settings.
    var credentialSource: SIPCredentialSource
    var registerExpires: UInt32 = 600
    var maximumExpires: UInt32 = 86400
    var outbound: Bool
    var instanceID: String?
    var ringTimeout: Duration = .seconds(30)
    /// What Accept does: redirect the call (302), or tell a softphone ringing beside this channel to answer.
    var acceptMode: AcceptMode = .redirect
    var softphoneContact: SIPNameAddress?
    var answerCommand: [String]?
    var answerTimeout: Duration = .seconds(10)
    var timers = SIPTimers()

    init(_ settings: ChannelSettings) throws {
        guard let registrarText = try settings.string("registrar") else {
            throw settings.error("registrar", "is missing; give the registrar's SIP URI, such as \"sip:pbx.example.org;transport=tcp\"")
        }
        let registrar: SIPURI
        do {
            registrar = try SIPURI(parsing: registrarText)
        } catch {
            throw settings.error("registrar", "\"\(registrarText)\" is not a SIP URI (\(error))")
        }
        switch (registrar.scheme, registrar.transport) {
        case ("sip", nil), ("sip", "udp"): self.transport = .udp
        case ("sip", "tcp"): self.transport = .tcp
        case ("sip", "tls"): self.transport = .tls
        // sips: is TLS over TCP to the registrar and every hop after it (RFC 3261 section 26.2); its
        // transport=tcp means just that, and transport=tls is deprecated but meant the same (RFC 5630
        // section 3.2.2).
        case ("sips", nil), ("sips", "tcp"), ("sips", "tls"): self.transport = .tls
        case ("sips", let other?):
            throw settings.error(
                "registrar",
                "\"\(registrarText)\": a sips: registrar is reached over TLS, not transport \"\(other)\"; leave transport out"
            )
        case ("sip", let other?):
            throw settings.error("registrar", "\"\(registrarText)\": transport \"\(other)\" is not supported; use udp, tcp or tls")
        case (let scheme, _):
            throw settings.error("registrar", "\"\(registrarText)\": a registrar is a sip: or sips: URI, not \(scheme):")
        }
        self.registrarHost = registrar.host.hasPrefix("[") ? String(registrar.host.dropFirst().dropLast()) : registrar.host
        // RFC 3261 section 19.1.2: 5061 for TLS, 5060 otherwise.
        self.registrarPort = registrar.port ?? (self.transport == .tls ? 5061 : 5060)
        // The Request-URI of a REGISTER names the domain, without user part or transport.
        var requestURI = registrar
        requestURI.user = nil
        self.registrar = requestURI

        guard let aorText = try settings.string("address-of-record") else {
            throw settings.error("address-of-record", "is missing; give the SIP address calls are made to, such as \"sip:alice@example.org\"")
        }
        do {
            self.addressOfRecord = try SIPURI(parsing: aorText)
        } catch {
            throw settings.error("address-of-record", "\"\(aorText)\" is not a SIP URI (\(error))")
        }
        guard let user = self.addressOfRecord.user, !user.isEmpty, self.addressOfRecord.isSIP else {
            throw settings.error("address-of-record", "\"\(aorText)\" needs a user part: sip:USER@DOMAIN")
        }
        self.displayName = try settings.string("display-name")

        var kind = SIPCredentialSource.Kind.bearer
        if let text = try settings.string("authentication") {
            guard let chosen = SIPCredentialSource.Kind(rawValue: text) else {
                let known = SIPCredentialSource.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw settings.error("authentication", "expected one of \(known), found \"\(text)\"")
            }
            kind = chosen
        }
        var credentialSource = SIPCredentialSource(kind: kind, username: try settings.string("username") ?? user)
        if let lifetime = try settings.duration("ephemeral-lifetime") {
            guard lifetime >= .seconds(120) else { throw settings.error("ephemeral-lifetime", "must be at least 2 minutes") }
            credentialSource.ephemeralLifetime = lifetime
        }
        if let hash = try settings.string("ephemeral-hash") {
            let hashes: [String: EphemeralCredentials.Hash] = ["sha1": .sha1, "sha256": .sha256, "sha384": .sha384, "sha512": .sha512]
            guard let chosen = hashes[hash] else {
                throw settings.error("ephemeral-hash", "expected \"sha1\", \"sha256\", \"sha384\" or \"sha512\", found \"\(hash)\"")
            }
            credentialSource.ephemeralHash = chosen
        }
        self.credentialSource = credentialSource

        if let expires = try settings.duration("register-expires") {
            guard expires >= .seconds(60), expires <= .seconds(86400) else {
                throw settings.error("register-expires", "must be between 60 s and 1 day (it should match the channel's keepalive-interval)")
            }
            self.registerExpires = UInt32(expires.components.seconds)
        }
        if let maximum = try settings.duration("max-expires") {
            guard maximum >= .seconds(Int64(self.registerExpires)) else {
                throw settings.error("max-expires", "must not be shorter than register-expires (\(self.registerExpires) s)")
            }
            self.maximumExpires = UInt32(min(maximum.components.seconds, Int64(UInt32.max)))
        }
        self.outbound = try settings.bool("outbound") ?? (self.transport != .udp)
        if self.outbound, self.transport == .udp {
            throw settings.error(
                "outbound",
                "RFC 5626 keep-alives need a TCP or TLS registrar here; set transport=tcp or tls in registrar, or outbound = false"
            )
        }
        if let instance = try settings.string("instance-id") {
            guard instance.hasPrefix("urn:"), !instance.contains(where: { $0 == "\"" || $0 == ">" || $0 == " " }) else {
                throw settings.error("instance-id", "expected a URN such as \"urn:uuid:…\", found \"\(instance)\"")
            }
            self.instanceID = instance
        }

        if let timeout = try settings.duration("ring-timeout") {
            guard timeout >= .seconds(1), timeout <= .seconds(300) else {
                throw settings.error("ring-timeout", "must be between 1 s and 5 minutes")
            }
            self.ringTimeout = timeout
        }
        if let contact = try settings.string("softphone-contact") {
            do {
                let parsed = try SIPNameAddress(parsing: contact)
                guard parsed.uri.isSIP else { throw settings.error("softphone-contact", "\"\(contact)\" is not a sip: or sips: address") }
                self.softphoneContact = parsed
            } catch let error as SettingsError {
                throw error
            } catch {
                throw settings.error("softphone-contact", "\"\(contact)\" is not a SIP address (\(error))")
            }
        }
        if let command = try settings.strings("answer-command") {
            guard let program = command.first, program.hasPrefix("/") else {
                throw settings.error("answer-command", "must start with an absolute program path, such as [\"/usr/bin/my-softphone\", \"--answer\"]")
            }
            self.answerCommand = command
        }
        if let timeout = try settings.duration("answer-timeout") {
            guard timeout > .zero else { throw settings.error("answer-timeout", "must be longer than zero") }
            self.answerTimeout = timeout
        }
        if let mode = try settings.string("accept") {
            guard let chosen = AcceptMode(rawValue: mode) else {
                throw settings.error(
                    "accept",
                    "expected \"redirect\" (302 to the softphone) or \"softphone\" (a softphone registered on the same address of record answers), found \"\(mode)\""
                )
            }
            self.acceptMode = chosen
        }
        if self.acceptMode == .softphone {
            guard self.answerCommand != nil else {
                throw settings.error(
                    "accept",
                    "\"softphone\" needs answer-command: the command that tells the softphone to answer, such as baresip's ctrl_tcp (see man attendant.toml and the example baresip-accept)"
                )
            }
            guard self.softphoneContact == nil else {
                throw settings.error(
                    "softphone-contact",
                    "is where accept = \"redirect\" sends calls; with accept = \"softphone\" nothing is redirected: remove it"
                )
            }
        }
    }

    /// What Accept does (`accept`).
    enum AcceptMode: String, Sendable {
        /// `302` to `softphone-contact`, or to the address `answer-command` prints.
        case redirect
        /// The softphone is registered on the same address of record, so the provider's forking proxy rings it
        /// beside this channel (Twilio SIP Domains refuse a 3xx from a registered endpoint, error 32219, and
        /// fork to every registered device, 32220): Accept runs `answer-command`, which tells the softphone to
        /// answer, and sends no final response on this fork; the proxy cancels it when the softphone answers.
        case softphone
    }

    /// Whether Accept has somewhere to send the call.
    var canAccept: Bool { self.softphoneContact != nil || self.answerCommand != nil }

    /// `registrar` as the user wrote it, for messages.
    var registrarDescription: String { "\(self.registrarHost):\(self.registrarPort) over \(self.transport.rawValue)" }

    /// The scheme of the Contact: `sips` with a `sips:` registrar (RFC 5630 section 4.1).
    var contactScheme: String { self.registrar.scheme == "sips" ? "sips" : "sip" }
}
