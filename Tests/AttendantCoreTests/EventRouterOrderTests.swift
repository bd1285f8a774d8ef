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

    /// The desktop is stuck on the chat's first alert; the agent's next message starts a contact; the
    /// channel then writes that it showed the message. When that write has landed, the contact is in the
    /// history.
    @Test func aChannelsWriteLandsOnlyAfterWhatItReportedIsRecordedWhileTheDesktopIsStuck() async throws {
        let folder = try makeTemporaryFolder("router-order")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try StateStore(directory: folder)
        let desktop = StuckPresenter()
        let router = EventRouter(store: store, logger: Logger(label: "attendant.test"), presenters: [desktop])
        let run = Task { await router.run() }
        let channelStore = HistoryFirstStore(store.channelStore(for: "chat", now: SystemWallClock.now), router: router, channel: "chat")

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
        let folder = try makeTemporaryFolder("router-order")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try StateStore(directory: folder)
        let router = EventRouter(store: store, logger: Logger(label: "attendant.test"), presenters: [])
        // Not running yet: nothing delivered is recorded.
        let contact = Contact(id: "call-1", kind: .call, from: Self.caller, summary: "Call", receivedAt: SystemWallClock.now())
        router.deliver(.incomingContact(contact), from: "voice")
        let chatStore = HistoryFirstStore(store.channelStore(for: "chat", now: SystemWallClock.now), router: router, channel: "chat")
        try await chatStore.setValue("1", forKey: "k")
        #expect(try await store.recentContacts().isEmpty, "the chat's write did not wait for the voice channel")

        let voiceStore = HistoryFirstStore(store.channelStore(for: "voice", now: SystemWallClock.now), router: router, channel: "voice")
        let write = Task { try await voiceStore.setValue("1", forKey: "k") }
        let run = Task { await router.run() }
        try await write.value
        #expect(try await store.recentContacts().map(\.contact.id) == ["call-1"])
        run.cancel()
    }

    /// Once recording has ended (the daemon stops), writes no longer wait.
    @Test func writesDoNotWaitOnceTheRouterHasStopped() async throws {
        let folder = try makeTemporaryFolder("router-order")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try StateStore(directory: folder)
        let router = EventRouter(store: store, logger: Logger(label: "attendant.test"), presenters: [])
        let run = Task { await router.run() }
        run.cancel()
        await run.value
        router.deliver(.chatStateChanged(.ready), from: "chat")
        let chatStore = HistoryFirstStore(store.channelStore(for: "chat", now: SystemWallClock.now), router: router, channel: "chat")
        try await chatStore.setValue("1", forKey: "k")
        #expect(try await chatStore.value(forKey: "k") == "1")
    }
}
