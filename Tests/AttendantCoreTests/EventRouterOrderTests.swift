import AttendantPluginAPI
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AttendantCore

/// What a channel keeps about what it reported never runs ahead of the contact history (the fault
/// campaign's CXone conversation lost to a SIGKILL: the channel's "shown" record landed, the contact it
/// followed never did), and a desktop that is slow to show alerts does not hold the history back.
@Suite(.timeLimit(.minutes(2))) struct EventRouterOrderTests {
    /// A presenter that holds the first event it is given until the test lets it go.
    final class StuckPresenter: AlertPresenter {
        private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let held = Mutex(false)

        func present(_ event: ChannelEvent, channel: String) async {
            let first = self.held.withLock { held in
                defer { held = true }
                return !held
            }
            guard first else { return }
            await withCheckedContinuation { continuation in self.gate.withLock { $0 = continuation } }
        }

        func release() {
            self.gate.withLock { gate in
                gate?.resume()
                gate = nil
            }
        }
    }

    static let caller = Party(displayName: "Ada Lovelace", address: "cxone-agent:42")

    /// A state database in a folder of its own and a router over it (not running yet).
    struct Rig {
        let folder: String
        let store: StateStore
        let router: EventRouter

        init(presenters: [any AlertPresenter] = []) throws {
            self.folder = try makeTemporaryFolder("router-order")
            self.store = try StateStore(directory: self.folder)
            self.router = EventRouter(store: self.store, logger: Logger(label: "attendant.test"), presenters: presenters)
        }

        /// `channel`'s store as the daemon's host lends it.
        func channelStore(_ channel: String) -> HistoryFirstStore {
            HistoryFirstStore(self.store.channelStore(for: channel, now: SystemWallClock.now), router: self.router, channel: channel)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: self.folder)
        }
    }

    /// The desktop is stuck on the chat's first alert; the agent's next message starts a contact; the
    /// channel then writes that it showed the message. When that write has landed, the contact is in the
    /// history.
    @Test func aChannelsWriteLandsOnlyAfterWhatItReportedIsRecordedWhileTheDesktopIsStuck() async throws {
        let desktop = StuckPresenter()
        let rig = try Rig(presenters: [desktop])
        defer { rig.remove() }
        let (store, router) = (rig.store, rig.router)
        let run = Task { await router.run() }
        let channelStore = rig.channelStore("chat")

        router.deliver(.chatStateChanged(.ready), from: "chat")
        let contact = Contact(id: "thread-1", kind: .chat, from: Self.caller, summary: "Conversation", receivedAt: SystemWallClock.now())
        router.deliver(.incomingContact(contact), from: "chat")
        try await channelStore.setValue("shown", forKey: "shown/thread-1")

        let history = try await store.recentContacts()
        #expect(history.map(\.contact.id) == ["thread-1"], "the write landed before the contact it follows was recorded")
        #expect(try await channelStore.value(forKey: "shown/thread-1") == "shown")
        desktop.release()
        run.cancel()
    }

    /// Waiting is per channel: another channel's events do not hold a write back, and a channel that
    /// reported nothing writes at once.
    @Test func aWriteWaitsOnlyForItsOwnChannelsEvents() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let (store, router) = (rig.store, rig.router)
        // Not running yet: nothing delivered is recorded.
        let contact = Contact(id: "call-1", kind: .call, from: Self.caller, summary: "Call", receivedAt: SystemWallClock.now())
        router.deliver(.incomingContact(contact), from: "voice")
        let chatStore = rig.channelStore("chat")
        try await chatStore.setValue("1", forKey: "k")
        #expect(try await store.recentContacts().isEmpty, "the chat's write did not wait for the voice channel")

        let voiceStore = rig.channelStore("voice")
        let write = Task { try await voiceStore.setValue("1", forKey: "k") }
        let run = Task { await router.run() }
        try await write.value
        #expect(try await store.recentContacts().map(\.contact.id) == ["call-1"])
        run.cancel()
    }

    /// Once recording has ended (the daemon stops), writes no longer wait.
    @Test func writesDoNotWaitOnceTheRouterHasStopped() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let run = Task { await rig.router.run() }
        run.cancel()
        await run.value
        rig.router.deliver(.chatStateChanged(.ready), from: "chat")
        let chatStore = rig.channelStore("chat")
        try await chatStore.setValue("1", forKey: "k")
        #expect(try await chatStore.value(forKey: "k") == "1")
    }
}
