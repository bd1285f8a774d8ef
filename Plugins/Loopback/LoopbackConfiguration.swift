package import AttendantPluginAPI

/// The Loopback channel's settings, from its `[channel.loopback]` table (each key is described on
/// ``LoopbackPluginFactory``); an error names the key.
package struct LoopbackConfiguration: Sendable {
    package var contactInterval: Duration?
    package var ringTimeout: Duration = .seconds(30)
    package var caller = Party(displayName: "Loopback Caller", address: "loopback:caller")
    package var contactKind = ContactKind.call
    package var listenFailures = 0
    package var listenFailure = ChannelError.Code.transient
    /// The delay a failed listen asks for, as a server's Retry-After does.
    package var listenRetryAfter: Duration?
    package var echoAgent = false
    /// How long the scripted agent takes to answer.
    package var echoDelay = Duration.seconds(1)
    package var stopDelay = Duration.zero

    package init() {}

    package init(_ settings: ChannelSettings) throws {
        if let interval = try settings.duration("contact-interval") {
            guard interval > .zero else { throw settings.error("contact-interval", "must be longer than zero") }
            self.contactInterval = interval
        }
        if let timeout = try settings.duration("ring-timeout") {
            guard timeout > .zero else { throw settings.error("ring-timeout", "must be longer than zero") }
            self.ringTimeout = timeout
        }
        if let name = try settings.string("caller") { self.caller.displayName = name }
        if let address = try settings.string("caller-address") { self.caller.address = address }
        if let kind = try settings.string("contact-kind") {
            guard ["call", "chat", "action"].contains(kind) else {
                throw settings.error("contact-kind", "expected \"call\", \"chat\" or \"action\", found \"\(kind)\"")
            }
            self.contactKind = ContactKind(kind)
        }
        if let echo = try settings.bool("echo-agent") { self.echoAgent = echo }
        if let failures = try settings.integer("listen-failures") {
            guard failures >= 0 else { throw settings.error("listen-failures", "must be zero or more") }
            self.listenFailures = failures
        }
        if let delay = try settings.duration("listen-retry-after") {
            guard delay > .zero else { throw settings.error("listen-retry-after", "must be longer than zero") }
            self.listenRetryAfter = delay
        }
        if let delay = try settings.duration("stop-delay") {
            guard delay >= .zero else { throw settings.error("stop-delay", "must not be negative") }
            self.stopDelay = delay
        }
        if let failure = try settings.string("listen-failure") {
            switch failure {
            case "transient": self.listenFailure = .transient
            case "authentication": self.listenFailure = .authentication
            case "configuration": self.listenFailure = .configuration
            default:
                throw settings.error("listen-failure", "expected \"transient\", \"authentication\" or \"configuration\", found \"\(failure)\"")
            }
        }
    }
}
