package import AttendantPluginAPI
import Glibc

/// Shows contacts as lines on standard output: the demo's stand-in for desktop notifications.
package struct TerminalAlertPresenter: AlertPresenter {
    package init() {}

    package func present(_ event: ChannelEvent, channel: String) async {
        guard let line = Self.line(for: event, channel: channel) else { return }
        let text = line + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    }

    /// The line an event shows as, or nil for events the terminal does not show.
    static func line(for event: ChannelEvent, channel: String) -> String? {
        let line: String
        switch event {
        case .incomingContact(let contact) where contact.threadID == nil:
            // A chat contact that names its thread shows through the thread's messages, as on the desktop.
            let what = contact.kind == .call ? "Incoming call" : contact.kind == .chat ? "New chat" : "New \(contact.kind)"
            let summary = contact.summary.isEmpty ? "" : ": \(contact.summary)"
            let actions = contact.actions.isEmpty ? "" : "  [" + contact.actions.map(\.label).joined(separator: " | ") + "]"
            line = "🔔 \(what) from \(contact.from) on \(channel)\(summary)\(actions)"
        case .contactEnded(let id, let outcome):
            line = "   \(channel): contact \(id) ended (\(outcome))"
        case .messageReceived(let message) where message.kind == .message:
            let text = Self.printable(message.text)
            switch message.direction {
            case .toAgent: line = "   \(channel) › you: \(text)"
            default: line = "💬 \(Self.printable(message.sender.displayName)) on \(channel): \(text)"
            }
        case .chatStateChanged(let state) where state == .ready || state == .offline:
            line = "   \(channel): chat \(state)"
        case .actionReceived(let action):
            let body = action.body.isEmpty ? "" : ": \(Self.printable(action.body))"
            let links = action.links.isEmpty ? "" : "  [" + action.links.map { Self.printable($0.label) }.joined(separator: " | ") + "]"
            line = "📣 \(Self.printable(action.title)) on \(channel)\(body)\(links)"
        case .actionClosed(let id, let reason):
            line = "   \(channel): action \(id) closed (\(reason))"
        case .threadUpdated(let thread) where thread.state == .closed:
            line = "   \(channel): conversation \(thread.id) closed"
        default:
            return nil
        }
        return line
    }

    /// Remote text on one terminal line: control characters (escape sequences among them) become spaces,
    /// so a remote party cannot move the cursor, recolour or retitle the terminal.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.value {
                    case 0..<0x20, 0x7F..<0xA0: " "
                    default: scalar
                    }
                }
            )
        )
    }
}
