/// A value a session keeps across restarts, which its ``SessionDriver`` writes in order with the
/// session's work (``SessionAction/write(_:)``): state to the channel's store, what lets someone act as
/// the user (tokens, a chat's keys) to its secrets, never the state database. Since API 1.9.
///
/// A write that fails is logged as an error naming ``what`` and ``ifLost``; the session goes on.
public struct StoreWrite: Sendable, Hashable {
    @frozen public enum Place: Sendable, Hashable {
        /// ``AttendantPluginAPI/ChannelHost/store``.
        case store
        /// ``AttendantPluginAPI/ChannelHost/secrets``.
        case secrets
    }

    public var place: Place
    public var key: String
    /// The text kept; nil removes the key.
    public var value: String?
    /// What the value is, for the error if it cannot be written: "the chat's transcript position".
    public var what: String
    /// What a lost write means, added to that error: "it may be recorded again after a restart".
    public var ifLost: String?

    public init(_ place: Place, key: String, value: String?, what: String, ifLost: String? = nil) {
        self.place = place
        self.key = key
        self.value = value
        self.what = what
        self.ifLost = ifLost
    }
}
