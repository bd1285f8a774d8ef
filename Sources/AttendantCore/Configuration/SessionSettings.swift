/// The `[session]` table: which desktop-session events send channels to the background.
package struct SessionSettings: Sendable, Equatable {
    /// Something logind reports that can mean "the person is away".
    package enum Trigger: String, Sendable, Hashable, CaseIterable {
        /// Suspend or hibernate (`PrepareForSleep`).
        case sleep
        /// The screen locked (the session's `Lock`).
        case lock
    }

    /// Which events mean background; the others are only logged. Default: sleep only, so a locked
    /// screen keeps every channel in the foreground and nothing is missed at the desk.
    package var backgroundOn: Set<Trigger> = [.sleep]
    /// How long channels get to go to the background before the daemon lets the machine sleep (it
    /// holds a logind delay lock until then; logind's own limit, `InhibitDelayMaxSec`, is 5 s).
    package var sleepDelay: Duration = .seconds(3)

    package static let longestSleepDelay: Duration = .seconds(30)

    package init() {}
}
