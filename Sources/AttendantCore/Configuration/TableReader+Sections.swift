import AttendantPluginAPI

// The tables beside the channels: [alerts], [session], [links], and a channel's chat-alert-* keys.
extension TableReader {
    /// The `[alerts]` table.
    mutating func alertSettings() -> AlertSettings {
        var alerts = AlertSettings()
        if let coalesce = self.duration("coalesce", positive: false) {
            if coalesce <= AlertSettings.longestCoalesce {
                alerts.coalesce = coalesce
            } else {
                let found = self.table["coalesce"].map(\.description) ?? "\(coalesce)"
                self.problem(.invalidValue, "coalesce", "expected a duration of at most 10 seconds, found \(found)")
            }
        }
        if let doNotDisturb = self.bool("do-not-disturb") { alerts.doNotDisturb = doNotDisturb }
        if let ring = self.bool("ring") { alerts.ring = ring }
        if let path = self.path("ring-sound") { alerts.ringSound = path }
        if let words = self.strings("terminal") {
            if words.first?.isEmpty ?? true {
                self.problem(.invalidValue, "terminal", "expected a program and its arguments, such as [\"foot\"] or [\"gnome-terminal\", \"--\"]")
            } else {
                alerts.terminal = words
            }
        }
        return alerts
    }

    /// The `[session]` table.
    mutating func sessionSettings() -> SessionSettings {
        var session = SessionSettings()
        if let names = self.strings("background-on") {
            let known = SessionSettings.Trigger.allCases.map(\.rawValue)
            var triggers: Set<SessionSettings.Trigger> = []
            for name in names {
                if let trigger = SessionSettings.Trigger(rawValue: name) {
                    triggers.insert(trigger)
                } else {
                    self.problem(
                        .invalidValue,
                        "background-on",
                        "unknown session event \"\(name)\"; expected some of \(known.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
            }
            session.backgroundOn = triggers
        }
        if let delay = self.duration("sleep-delay", positive: false) {
            if delay <= SessionSettings.longestSleepDelay {
                session.sleepDelay = delay
            } else {
                let found = self.table["sleep-delay"].map(\.description) ?? "\(delay)"
                self.problem(.invalidValue, "sleep-delay", "expected a duration of at most 30 seconds, found \(found)")
            }
        }
        return session
    }

    /// The `[links]` table.
    mutating func linkSettings() -> LinkSettings {
        var links = LinkSettings()
        if let schemes = self.strings("schemes") {
            for scheme in schemes {
                let valid = scheme.first?.isLetter == true && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                if valid {
                    links.schemes.append(scheme.lowercased())
                } else {
                    self.problem(.invalidValue, "schemes", "\"\(scheme)\" is not a URL scheme; write schemes without \":\", such as \"mailto\"")
                }
            }
        }
        for key in ["command", "opener"] {
            guard let words = self.strings(key) else { continue }
            if words.first?.isEmpty ?? true {
                self.problem(.invalidValue, key, "expected a program and its arguments, such as [\"xdg-open\"]")
            } else if key == "command" {
                links.command = words
            } else {
                links.opener = words
            }
        }
        if let timeout = self.duration("handler-timeout") {
            if timeout <= LinkSettings.longestHandlerTimeout {
                links.handlerTimeout = timeout
            } else {
                let found = self.table["handler-timeout"].map(\.description) ?? "\(timeout)"
                self.problem(.invalidValue, "handler-timeout", "expected a duration of at most 30 seconds, found \(found)")
            }
        }
        return links
    }

    /// A channel's `chat-alert-*` keys.
    mutating func chatAlertSettings() -> ChatAlertSettings {
        var chat = ChatAlertSettings()
        if let names = self.strings("chat-alert-events") {
            let known = ChatMessage.Kind.allKnown.map(\.rawValue)
            var events: Set<ChatMessage.Kind> = []
            for name in names {
                if known.contains(name) {
                    events.insert(ChatMessage.Kind(name))
                } else {
                    self.problem(
                        .invalidValue,
                        "chat-alert-events",
                        "unknown chat event \"\(name)\"; expected some of \(known.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
            }
            chat.events = events
        }
        if let title = self.string("chat-alert-title") {
            if title.allSatisfy(\.isWhitespace) {
                self.problem(.invalidValue, "chat-alert-title", "expected a title that is not empty")
            } else {
                do {
                    chat.title = try AlertTemplate(title, known: AlertTemplate.chatPlaceholders)
                    chat.titleIsSet = true
                } catch {
                    self.problem(.invalidValue, "chat-alert-title", "\(error)")
                }
            }
        }
        if let lines = self.integer("chat-alert-lines") {
            if ChatAlertSettings.lineRange.contains(lines) {
                chat.lines = lines
            } else {
                let range = ChatAlertSettings.lineRange
                self.problem(
                    .invalidValue,
                    "chat-alert-lines",
                    "expected an integer from \(range.lowerBound) to \(range.upperBound), found the integer \(lines)"
                )
            }
        }
        return chat
    }
}
