public import AttendantPluginAPI
import Glibc

/// Shows contacts as lines on standard output: the demo's stand-in for desktop notifications.
public struct TerminalAlertPresenter: AlertPresenter {
    public init() {}

    public func present(_ event: ChannelEvent, channel: String) async {
        let line: String
        switch event {
        case .incomingContact(let contact):
            let what = contact.kind == .call ? "Incoming call" : contact.kind == .chat ? "New chat" : "New \(contact.kind)"
            let summary = contact.summary.isEmpty ? "" : ": \(contact.summary)"
            let actions = contact.actions.isEmpty ? "" : "  [" + contact.actions.map(\.label).joined(separator: " | ") + "]"
            line = "🔔 \(what) from \(contact.from) on \(channel)\(summary)\(actions)"
        case .contactEnded(let id, let outcome):
            line = "   \(channel): contact \(id) ended (\(outcome))"
        default:
            return
        }
        let text = line + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    }
}
