public import AttendantPluginKit

/// The body's `app_info`: what the SDKs send about the app and the device, here about the daemon and this
/// Linux machine (iOS `AppInfo`, `SystemInfo`, `Screen`; Android `AppInfo.kt`).
public struct KarteAppInfo: Sendable, Hashable {
    public var versionName: String
    public var versionCode: String
    /// Sent as `karte_sdk_version` and as every `module_info` entry: the plugin's own version.
    public var sdkVersion: String
    public var system: SystemInfo

    public init(versionName: String, versionCode: String, sdkVersion: String, system: SystemInfo) {
        self.versionName = versionName
        self.versionCode = versionCode
        self.sdkVersion = sdkVersion
        self.system = system
    }

    /// `system_info`: `os` is always `Linux`.
    public struct SystemInfo: Sendable, Hashable {
        public var osVersion: String
        /// What the phone SDKs call the device: here the machine's kind (`desktop`, `laptop`).
        public var device: String
        /// The hardware model, or the hostname's product string; may be empty.
        public var model: String
        /// The app's identifier, as iOS's `bundle_id`: the D-Bus name of the daemon.
        public var bundleID: String
        /// BCP 47, such as `ja-JP`.
        public var language: String
        /// The primary screen, in pixels.
        public var screenWidth: Int
        public var screenHeight: Int

        public init(osVersion: String, device: String, model: String, bundleID: String, language: String, screenWidth: Int, screenHeight: Int) {
            self.osVersion = osVersion
            self.device = device
            self.model = model
            self.bundleID = bundleID
            self.language = language
            self.screenWidth = screenWidth
            self.screenHeight = screenHeight
        }
    }

    public var json: JSONValue {
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
