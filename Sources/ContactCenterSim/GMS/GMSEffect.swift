/// Work to do once the state's lock is released.
enum GMSEffect: Sendable {
    case resume(CheckedContinuation<BayeuxPollOutcome, Never>, BayeuxPollOutcome)
    case send(BayeuxSocket, [GMSJSON])
    /// One text frame of these bytes, whatever they are.
    case sendRaw(BayeuxSocket, [UInt8])
    case closeLink(HTTPConnectionLink)
    case dropSocket(BayeuxSocket)
    /// Destroy the client unless a connect with a later epoch came within the client window.
    case expireLater(client: String, epoch: Int)
    /// Answer the held connect of this epoch after `hold`, if it is still held.
    case answerHeldLater(client: String, epoch: Int, hold: Duration)
    /// Watch a held long-poll's connection: if it closes while held, the long-poll has ended.
    case watchClose(HTTPConnectionLink, client: String, epoch: Int)
    /// The agent joins and greets after the greeting delay.
    case greetLater(chat: String)
    /// The agent answers a customer message after the auto-reply delay.
    case autoReplyLater(chat: String, text: String)
}
