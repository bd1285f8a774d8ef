import AttendantPluginAPI
import CXoneCore
import Synchronization

// The contact history (CXoneCore's ``ChatContactHistory``): kept in the store, told to the host.
extension CXoneChatChannel {
    /// Emits the contact event a machine report brings, before the report itself reaches the host.
    func recordContact(_ report: Report) async {
        guard let change = self.state.withLock({ state in state.contacts.note(report) { state.machine?.thread($0)?.name } }) else { return }
        do {
            try await self.write(ChatStorage.contactRecord(threadID: change.threadID, ended: change.ended))
        } catch {
            self.host.logger.error("\(self.prefix): could not note that thread \(change.threadID) is in the contact history: \(error); it may be recorded again after a restart")
        }
        self.host.emit(change.event)
    }
}
