package import AttendantPluginKit

/// A timer the chat state machine asks its driver to run (the kit's ``TimerID``): a value from an earlier
/// arming is stale and ignored.
package typealias ChatTimerID = TimerID<ChatStateMachine.Timer>
