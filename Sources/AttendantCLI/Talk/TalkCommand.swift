/// A line of the conversation view that starts with `/`: what the view does instead of sending it.
enum TalkCommand: Sendable, Hashable {
    /// `/quit`, `/exit`.
    case quit
    /// `/help`: the commands on the status line.
    case help
    /// `/N` or `/choose N`: the latest message's choice N (from 1).
    case choose(Int)
    /// `/save [N]`: the latest file that came, or its message's file N (from 1).
    case save(Int)
    /// `/send PATH`: a file.
    case sendFile(String)
    /// `//text`: the message `/text`.
    case message(String)
    /// Not a command the view knows, or one without what it needs: the words say which.
    case invalid(String)

    /// The commands, for the status line.
    static let list = "/1…/9 or /choose N answers · /save [N] saves a file · /send PATH sends one · //… sends /… · /quit leaves"

    /// The command `line` (without spaces around it) is; nil when it does not start with `/`.
    init?(_ line: Substring) {
        guard line.first == "/" else { return nil }
        let body = line.dropFirst()
        if body.first == "/" {
            self = .message(String(body))
            return
        }
        let name = body.prefix { $0 != " " }
        let argument = String(body.dropFirst(name.count).drop { $0 == " " })
        switch name {
        case "quit", "exit": self = .quit
        case "help", "?": self = .help
        case "choose":
            guard let number = Int(argument), number > 0 else {
                self = .invalid("/choose needs the number of a choice, as in /choose 2")
                return
            }
            self = .choose(number)
        case "save":
            guard argument.isEmpty || Int(argument).map({ $0 > 0 }) == true else {
                self = .invalid("/save takes the number of a file, as in /save 2, or nothing for the latest")
                return
            }
            self = .save(Int(argument) ?? 1)
        case "send":
            guard !argument.isEmpty else {
                self = .invalid("/send needs a file's path, as in /send ~/notes.pdf")
                return
            }
            self = .sendFile(argument)
        default:
            if argument.isEmpty, let number = Int(name), number > 0 {
                self = .choose(number)
            } else {
                self = .invalid("No command /\(name); /help lists them (// starts a message with /)")
            }
        }
    }
}
