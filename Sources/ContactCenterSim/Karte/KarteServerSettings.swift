/// How the simulator's KARTE track endpoint behaves: the app key it accepts, its scripted campaigns, and
/// whether it compresses answers for clients that accept gzip.
package struct KarteServerSettings: Sendable {
    /// The demo's app key: KARTE app keys are 32 characters (karte.md §1, `AppKey.isValid`).
    package static let demoAppKey = "demoappkey0000000000000000000001"

    /// The `X-KARTE-App-Key` every track request must carry; any other gets 401.
    package var appKey: String = Self.demoAppKey
    package var campaigns: [KarteCampaign] = KarteCampaign.demo
    /// Off, answers are plain even when the request sends `Accept-Encoding: gzip`.
    package var gzipAnswers: Bool = true

    package init(appKey: String = Self.demoAppKey, campaigns: [KarteCampaign] = KarteCampaign.demo, gzipAnswers: Bool = true) {
        self.appKey = appKey
        self.campaigns = campaigns
        self.gzipAnswers = gzipAnswers
    }
}
