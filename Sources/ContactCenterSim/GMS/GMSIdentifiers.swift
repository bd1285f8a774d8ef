/// Random ids shaped like GMS's: CometD client ids, chat ids, secure keys, user ids, event ids.
enum GMSIdentifiers {
    /// `length` random characters out of `alphabet`.
    static func random(_ length: Int, from alphabet: String = "0123456789abcdefghijklmnopqrstuvwxyz") -> String {
        let characters = Array(alphabet)
        return String((0..<length).map { _ in characters.randomElement() ?? "0" })
    }

    static func clientID() -> String { self.random(26) }
    static func chatID() -> String { "0001" + self.random(12, from: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") }
    static func secureKey() -> String { self.random(16, from: "0123456789abcdef") }
    static func userID() -> String { self.random(16, from: "0123456789ABCDEF") }
    static func eventID() -> String { self.random(32, from: "0123456789abcdef") }
}
