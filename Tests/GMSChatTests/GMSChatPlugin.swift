import AttendantPluginAPI
import AttendantPluginTestKit

enum GMSChatPlugin {
    /// The plugin, loaded from its .so beside the test bundle through its entry symbols, as the daemon
    /// loads it (linking its target into the bundle would clash with the other plugins' entry symbols).
    static let factory: any ChannelPluginFactory = {
        do {
            return try PluginLibrary.built("gms-chat").factory
        } catch {
            fatalError("cannot load the gms-chat plugin: \(error)")
        }
    }()
}
