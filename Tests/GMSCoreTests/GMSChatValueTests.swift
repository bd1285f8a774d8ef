import GMSCore
import Testing

/// ``GMSChat`` alone: a start and the callers waiting for it, v1's interaction created once connected,
/// and what an active chat holds until it ends.
@Suite struct GMSChatValueTests {
    static let keys = GMSChatKeys(secureKey: "key-1", chatID: "chat-1")

    @Test func aStartIsAskedForOnceAndItsCallersHearItInRequestOrder() {
        var chat = GMSChat.none(lastThread: nil)
        let refused = chat.start(1, timeout: .seconds(8), mayStart: false)
        #expect(refused == nil && chat == .none(lastThread: nil), "not connected: no start")
        let first = chat.start(3, timeout: .seconds(8), mayStart: true)
        let second = chat.start(2, timeout: .seconds(8), mayStart: false)
        #expect(first == .requestChat && second == .waiting, "a start under way is waited for, not repeated")
        #expect(chat.phase == .starting && chat.active == nil && chat.thread == nil)

        let waited = chat.began(Self.keys, thread: "gms-1")
        #expect(waited == [2, 3])
        #expect(chat == .active(GMSChat.Active(keys: Self.keys, thread: "gms-1", contact: .awaitingAgent)))
        let again = chat.start(4, timeout: .seconds(8), mayStart: false)
        #expect(again == .active)
    }

    @Test func aFailedOrLateStartLeavesNoChatButTheLastThreadListed() {
        var chat = GMSChat.ended(thread: "gms-old")
        _ = chat.start(1, timeout: .seconds(8), mayStart: true)
        _ = chat.start(2, timeout: .seconds(5), mayStart: true)
        #expect(chat.thread == "gms-old", "the chat before is still listed, closed")
        let late = chat.timeOut(2)
        #expect(late == .seconds(5))
        let others = chat.startFailed()
        #expect(others == [1])
        #expect(chat == .none(lastThread: "gms-old"))
        let nothing = chat.startFailed()
        let noDeadline = chat.timeOut(1)
        #expect(nothing.isEmpty && noDeadline == nil, "no start, no callers")
    }

    @Test func v1CreatesTheInteractionOnceConnectedAndOnce() {
        var early = GMSChat.none(lastThread: nil)
        _ = early.start(1, timeout: .seconds(8), mayStart: true)
        let notYet = early.serviceMade("svc-1", connected: false)
        #expect(notYet == nil)
        let onConnect = early.connected()
        #expect(onConnect == "svc-1")
        let twice = early.connected()
        #expect(twice == nil, "once")

        var late = GMSChat.none(lastThread: nil)
        _ = late.start(1, timeout: .seconds(8), mayStart: true)
        let now = late.serviceMade("svc-2", connected: true)
        #expect(now == "svc-2")
        let another = late.serviceMade("svc-3", connected: true)
        let onConnectToo = late.connected()
        #expect(another == nil && onConnectToo == nil, "one interaction is being created")

        var none = GMSChat.none(lastThread: nil)
        let made = none.serviceMade("svc-4", connected: true)
        let connected = none.connected()
        #expect(made == nil && connected == nil, "without a start")
    }

    @Test func anActiveChatHoldsItsKeysAndContactUntilItEnds() {
        var chat = GMSChat.active(GMSChat.Active(keys: Self.keys, thread: "gms-1", contact: .awaitingAgent))
        chat.modifyActive {
            $0.contact = .recorded
            $0.keys.alias = "Me"
        }
        #expect(chat.active?.keys.alias == "Me")
        let ended = chat.end()
        #expect(ended?.contact == .recorded && ended?.thread == "gms-1")
        #expect(chat == .ended(thread: "gms-1") && chat.phase == .ended && chat.thread == "gms-1")
        let endedAgain = chat.end()
        #expect(endedAgain == nil, "once")
        let changed: Void? = chat.modifyActive { $0.contact = .awaitingAgent }
        #expect(changed == nil, "nothing to change without an active chat")
    }
}
