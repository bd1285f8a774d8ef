package import AttendantPluginKit

/// The body's `app_info`: what the SDKs send about the app and the device, here about the daemon and this
/// Linux machine (iOS `AppInfo`, `SystemInfo`, `Screen`; Android `AppInfo.kt`).
package struct KarteAppInfo: Sendable, Hashable {
    package var versionName: String
    package var versionCode: String
    /// Sent as `karte_sdk_version` and as every `module_info` entry: the plugin's own version.
    package var sdkVersion: String
    package var system: SystemInfo

    package init(versionName: String, versionCode: String, sdkVersion: String, system: SystemInfo) {
        self.versionName = versionName
        self.versionCode = versionCode
        self.sdkVersion = sdkVersion
        self.system = system
    }

    /// `system_info`: `os` is always `Linux`.
    package struct SystemInfo: Sendable, Hashable {
        package var osVersion: String
        /// What the phone SDKs call the device: here the machine's kind (`desktop`, `laptop`).
        package var device: String
        /// The hardware model, or the hostname's product string; may be empty.
        package var model: String
        /// The app's identifier, as iOS's `bundle_id`: the D-Bus name of the daemon.
        package var bundleID: String
        /// BCP 47, such as `ja-JP`.
        package var language: String
        /// The primary screen, in pixels.
        package var screenWidth: Int
        package var screenHeight: Int

        package init(osVersion: String, device: String, model: String, bundleID: String, language: String, screenWidth: Int, screenHeight: Int) {
            self.osVersion = osVersion
            self.device = device
            self.model = model
            self.bundleID = bundleID
            self.language = language
            self.screenWidth = screenWidth
            self.screenHeight = screenHeight
        }
    }

    package var json: JSONValue {
        .object([
            "version_name": .string(self.versionName),
            "version_code": .string(self.versionCode),
            "karte_sdk_version": .string(self.sdkVersion),
            "module_info": .object(["core": .string(self.sdkVersion), "in_app_messaging": .string(self.sdkVersion)]),
            "system_info": .object([
                "os": .string("Linux"),
                "os_version": .string(self.system.osVersion),
                "device": .string(self.system.device),
                "model": .string(self.system.model),
                "bundle_id": .string(self.system.bundleID),
                "language": .string(self.system.language),
                "screen": .object([
                    "width": .number(Double(self.system.screenWidth)),
                    "height": .number(Double(self.system.screenHeight)),
                ]),
            ]),
        ])
    }
}
