import AttendantPluginAPI

extension ChannelSupervisor {
    package struct Configuration: Sendable {
        package var machine = SupervisorStateMachine<SystemRandomNumberGenerator>.Configuration()
        /// The limit for `listen()` and `keepAlive()`: by default `listen-timeout`'s default, which says why
        /// it is longer than the protocols' own timeouts.
        package var callTimeout: Duration = ChannelConfiguration.defaultListenTimeout
        /// The limit for `stopListening()`.
        package var stopTimeout: Duration = .seconds(5)
        /// The channel closes its connection when the session goes to the background, so while it is
        /// there a listening channel shows as `background`. True for chats: the mobile chat SDKs (CXone's,
        /// GMS's) disconnect in the background, and ``ApplicationState/background`` asks the same of their
        /// plugins; a voice channel stays registered for calls, an actions channel keeps tracking.
        package var disconnectsInBackground = false

        package init() {}

        package init(_ channel: ChannelConfiguration, shutdownTimeout: Duration) {
            self.machine.keepAliveInterval = channel.keepAliveInterval
            self.callTimeout = channel.listenTimeout
            self.stopTimeout = shutdownTimeout
        }
    }

    enum Input: Sendable {
        case stoppedListening(ChannelError)
        case listenFinished(ChannelError?)
        case keepAliveFinished(ChannelError?)
        case tokenFinished(ChannelError?)
        /// The keeper renewed the token on its own, or the user did; the channel has it.
        case tokenChanged
        case stopFinished
        case timer(generation: Int, tokenLifetime: Duration?)
        case resume
        /// The network came back or changed.
        case networkChanged
        /// The channel has handled a change of the session's application state.
        case applicationStateChanged
        case stop
        case ping(CheckedContinuation<Void, Never>)
    }
}
