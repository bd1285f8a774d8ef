public import AttendantControl
import Systemd

// What the commands print for people (without --json).

extension StatusRecord {
    public var textLines: [String] {
        let notifications =
            self.notificationServer
            ? "a notification server is running"
            : "no notification server (alerts are kept and shown when one appears)"
        return [
            "\(self.version.isEmpty ? "attendantd" : self.version), pid \(self.pid)"
        ]
            + KeyValues.lines([
                ("Status", self.status),
                ("Channels", "\(self.channels), \(self.listening) listening"),
                ("Do not disturb", self.doNotDisturb ? "on" : "off"),
                ("Notifications", notifications),
            ])
    }
}

extension ChannelRecord {
    /// "expires in 14 min", "expired 3 min ago", "-" when the channel has no token or it does not say.
    public var tokenText: String {
        guard let expiresIn = self.tokenExpiresIn else { return "-" }
        return expiresIn > 0 ? "expires " + RelativeTime.from(expiresIn) : "expired " + RelativeTime.ago(-expiresIn)
    }

    /// The channel's detail and the token's last renewal error.
    public var detailText: String {
        var parts: [String] = []
        if !self.detail.isEmpty { parts.append(self.detail) }
        if let error = self.tokenLastError {
            let times = self.tokenFailures > 1 ? " (\(self.tokenFailures) times)" : ""
            parts.append("token renewal failed\(times): \(error)")
        }
        return parts.joined(separator: "; ")
    }

    public static func table(_ channels: [ChannelRecord]) -> [String] {
        guard !channels.isEmpty else { return ["No channels configured."] }
        var table = Table(["NAME", "PLUGIN", "STATE", "TOKEN", "RENEWED", "DETAIL"])
        for channel in channels {
            table.append([
                channel.name, channel.plugin, channel.state + (channel.onProbation ? " (probation)" : ""),
                channel.tokenText, channel.tokenLastRenewal.map { LocalTime.format($0) } ?? "-", channel.detailText,
            ])
        }
        return table.lines
    }
}

extension ContactRecord {
    /// The name, else the address, and who forwarded it: `Ada Lovelace (forwarded by sip:sales@example.org)`.
    var caller: String {
        let who = self.from.isEmpty ? (self.fromAddress.isEmpty ? "-" : self.fromAddress) : self.from
        guard let address = self.divertedFromAddress else { return who }
        let by = (self.divertedFrom ?? "").isEmpty ? address : self.divertedFrom ?? address
        return "\(who) (forwarded by \(by))"
    }

    public static func table(_ contacts: [ContactRecord]) -> [String] {
        guard !contacts.isEmpty else { return ["No contacts yet."] }
        var table = Table(["RECEIVED", "CHANNEL", "KIND", "FROM", "ID", "OUTCOME", "SUMMARY"])
        for contact in contacts {
            table.append([
                LocalTime.format(contact.receivedAt), contact.channel, contact.kind,
                contact.caller,
                contact.id, contact.outcome ?? "open", contact.summary,
            ])
        }
        return table.lines
    }
}

extension ChatThreadRecord {
    /// `thread-1 "Billing"`, or the id alone when the thread has no name.
    public var title: String { self.name.isEmpty ? self.id : "\(self.id) \(JSON.string(self.name).text)" }

    /// The thread's state line, then one line per message.
    public func textLines(channel: String) -> [String] {
        var state = self.state
        if let agent = self.assignedAgent { state += ", agent \(agent)" }
        if let position = self.positionInQueue { state += ", number \(position) in the queue" }
        return ["Thread \(self.title) on \(channel): \(state)"]
            + (self.lastMessages.isEmpty ? ["No messages yet."] : self.lastMessages.flatMap(\.lines))
    }

    public static func table(_ threads: [ChatThreadRecord], channel: String) -> [String] {
        guard !threads.isEmpty else { return ["No chat threads on \(channel)."] }
        var table = Table(["ID", "NAME", "STATE", "MESSAGES", "LAST"])
        for thread in threads {
            table.append([thread.id, thread.name, thread.state, String(thread.lastMessages.count), thread.lastMessages.last.map(\.summary) ?? "-"])
        }
        return table.lines
    }
}

extension ChatMessageRecord {
    /// `Ann Lee: Hello`; notices name their kind: `Ann Lee [joined]`.
    public var summary: String {
        let sender = self.sender.isEmpty ? (self.senderAddress.isEmpty ? self.direction : self.senderAddress) : self.sender
        let kind = self.kind == "message" || self.kind.isEmpty ? "" : " [\(self.kind)]"
        return Table.oneLine(sender + kind + (self.text.isEmpty ? "" : ": " + self.text))
    }

    /// `2026-11-22 10:00:00  Ann Lee: Hello`
    public var line: String { LocalTime.format(self.sentAt) + "  " + self.summary }

    /// ``line``, then a line for its choices (`chat choose MESSAGE ID`) and one per file (`chat save MESSAGE
    /// ID`), indented.
    public var lines: [String] {
        var lines = [self.line]
        if let choices = self.choices, !choices.isEmpty {
            let listed = choices.map { choice in "\(choice.id)=\(choice.label)" + (choice.url.map { " <\($0)>" } ?? "") }
            lines.append(Table.oneLine("    choices (chat choose \(self.id) ID): " + listed.joined(separator: ", ")))
        }
        for file in self.attachments ?? [] {
            let size = file.size.map { ", \($0) bytes" } ?? ""
            lines.append(Table.oneLine("    file \(file.id) (chat save \(self.id) \(file.id)): \(file.name) (\(file.mimeType)\(size))"))
        }
        return lines
    }
}

extension ControlSignal {
    /// One `monitor` line: `2026-11-22 10:00:00  desk  incoming-contact  contact=c1 from="Ann Lee"`.
    public func text(time: Int64) -> String {
        let stamp = LocalTime.format(time)
        switch self {
        case .channelEvent(let channel, let event, let details):
            let fields = details.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.field($0.value))" }
            return Table.oneLine(([stamp, channel, event] + (fields.isEmpty ? [] : [fields.joined(separator: " ")])).joined(separator: "  "))
        case .channelStateChanged(let channel, let state, let detail):
            return Table.oneLine("\(stamp)  \(channel)  state \(state)\(detail.isEmpty ? "" : ": " + detail)")
        case .doNotDisturbChanged(let on):
            return "\(stamp)  do-not-disturb \(on ? "on" : "off")"
        }
    }

    /// A detail value: strings bare when they are one plain word, quoted otherwise; string arrays
    /// joined with commas.
    static func field(_ value: BusValue) -> String {
        if let elements = value.elements {
            let strings = elements.compactMap(\.string)
            if strings.count == elements.count { return Self.field(.string(strings.joined(separator: ","))) }
        }
        guard let text = value.string else { return value.description }
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "\\" && $0 != "=" }
        if plain { return text }
        return JSON.string(text).text
    }
}

/// "Key:   value" lines with the values aligned.
enum KeyValues {
    static func lines(_ pairs: [(String, String)]) -> [String] {
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { key, value in
            key + ":" + String(repeating: " ", count: width - key.count + 2) + Table.oneLine(value)
        }
    }
}
