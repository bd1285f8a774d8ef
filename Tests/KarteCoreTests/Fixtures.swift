import AttendantPluginAPI
public import AttendantPluginKit
import KarteCore

enum Fixtures {
    static let appInfo = KarteAppInfo(
        versionName: "1.0",
        versionCode: "1",
        sdkVersion: "0.1.0",
        system: .init(
            osVersion: "6.8",
            device: "desktop",
            model: "",
            bundleID: "io.attendant",
            language: "ja-JP",
            screenWidth: 1920,
            screenHeight: 1080
        )
    )

    static let responseText = #"""
        {"success":1,"status":200,"response":{"status":200,
         "messages":[{"unknown_top":7,
           "action":{"_id":"a1","shorten_id":"s1","campaign_id":"c1","type":"webpopup","widget_extra":"kept",
                     "response_timestamp":"2019-11-24T02:05:12.616Z",
                     "content":{"title":"Sale","body":"Half price","links":[{"label":"Open","url":"https://example.com/x","target":"_blank"},{"url":"https://example.com/y"}]}},
           "campaign":{"_id":"c1","service_action_type":"webpopup","native_app_display_limit_mode":true},
           "trigger":{"event_hashes":"a001"}}],
         "events":[{"event_name":"buy"}],
         "options":{"user_id":"vis-1"}}}
        """#

    /// A message as the simulator's campaigns send it.
    static func message(
        id: String,
        campaign: String? = nil,
        type: String = "webpopup",
        serviceActionType: String = "webpopup",
        limit: Bool = false,
        timestamp: String? = nil,
        content: [String: JSONValue] = ["title": "T", "body": "B"]
    ) -> JSONValue {
        var action: [String: JSONValue] = ["_id": .string(id), "shorten_id": .string("s-\(id)"), "type": .string(type), "content": .object(content)]
        if let timestamp { action["response_timestamp"] = .string(timestamp) }
        return .object([
            "action": .object(action),
            "campaign": .object([
                "_id": .string(campaign ?? "c-\(id)"), "service_action_type": .string(serviceActionType),
                "native_app_display_limit_mode": .bool(limit),
            ]),
            "trigger": .object(["event_hashes": "h1"]),
        ])
    }

    static func response(_ messages: JSONValue...) -> [UInt8] {
        JSONValue.object(["success": 1, "status": 200, "response": .object(["messages": .array(messages)])]).encoded()
    }
}

// Literals for building JSON in tests.
extension JSONValue: @retroactive ExpressibleByStringLiteral, @retroactive ExpressibleByIntegerLiteral,
    @retroactive ExpressibleByFloatLiteral, @retroactive ExpressibleByBooleanLiteral,
    @retroactive ExpressibleByArrayLiteral, @retroactive ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}
