import AttendantCore
import AttendantPluginAPI
import Foundation

/// The SIPVoice plugin as the daemon gets it: its shared library (built beside the test bundle), loaded by
/// the daemon's own `PluginLoader`. (Linking the plugin target into the test bundle would clash with the
/// Loopback plugin's entry symbols.)
enum SIPVoicePlugin {
    static let factory: any ChannelPluginFactory = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        do {
            return try PluginLoader(searchPath: [(exe as NSString).deletingLastPathComponent]).load("sip-voice").factory
        } catch {
            fatalError("cannot load the sip-voice plugin: \(error)")
        }
    }()
}
