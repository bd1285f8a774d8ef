import AttendantPluginAPI
import AttendantPluginTestKit

enum CXoneChatPlugin {
    /// The plugin, loaded from its .so beside the test bundle through its entry symbols, as the daemon
    /// loads it (linking its target into the bundle would clash with the other plugins' entry symbols).
    static let factory: any ChannelPluginFactory = {
        do {
            return try PluginLibrary.built("cxone-chat").factory
        } catch {
            fatalError("cannot load the cxone-chat plugin: \(error)")
        }
    }()
}
