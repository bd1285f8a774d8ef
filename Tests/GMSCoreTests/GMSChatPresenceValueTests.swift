import GMSCore
import Testing

/// ``GMSChatPresence`` alone: listening and the host's foreground or background as one state, and what
/// a server that ends the session, the keep-alive and coming back to the foreground find in each.
@Suite struct GMSChatPresenceValueTests {
    typealias Presence = GMSChatPresence

    @Test func aListeningChannelSleepsInTheBackgroundAndComesBackInTheForeground() {
        var presence = Presence.idle
        presence.listened()
        #expect(presence == .listening && presence.isListening && !presence.isInBackground)
        let saysGoodbye = presence.enterBackground()
        #expect(saysGoodbye && presence == .asleep && presence.isListening && presence.isInBackground)
        let resumes = presence.enterForeground()
        #expect(resumes && presence == .listening)
        let again = presence.enterForeground()
        #expect(!again, "only a channel that slept starts a new session")
    }

    @Test func onlyAListeningChannelInTheForegroundIsStoppedByTheServerAndOnce() {
        var presence = Presence.listening
        let first = presence.serverEnded()
        #expect(first && presence == .idle && presence.sessionIsOver)
        let second = presence.serverEnded()
        #expect(!second, "told once")

        var asleep = Presence.asleep
        let inBackground = asleep.serverEnded()
        #expect(!inBackground && asleep == .asleep, "its session said goodbye: it listens on")
        #expect(!asleep.sessionIsOver)
    }

    @Test func aChannelThatDoesNotListenInTheBackgroundStartsNothingInTheForeground() {
        var presence = Presence.idle
        let saysGoodbye = presence.enterBackground()
        #expect(!saysGoodbye && presence == .idleInBackground && !presence.sessionIsOver)
        let resumes = presence.enterForeground()
        #expect(!resumes && presence == .idle && presence.sessionIsOver)

        // A listen() that connects in the background sleeps until the foreground.
        _ = presence.enterBackground()
        presence.listened()
        #expect(presence == .asleep)
        presence.stopListening()
        #expect(presence == .idleInBackground, "stopped, still in the background")
    }
}
