import Foundation

/// Rich messages (the CXone mobile SDK 3.3.0's QUICK_REPLIES, LIST_PICKER and RICH_LINK) and the
/// inactivity popup (3.1.0: a PLUGIN message whose element is an INACTIVITY_POPUP), written by the
/// scripted agent in the shapes the SDK's DTOs read (`MessageQuickRepliesDTO`, `MessageListPickerDTO`,
/// `MessageRichLinkDTO`, `MessageInactivityPopupDTO`), and the customer's answer to a popup.
extension CXoneGateway {
    /// The kinds ``agentOffers(threadID:kind:)`` writes.
    package static let richKinds = ["quick-replies", "list-picker", "rich-link", "inactivity-popup"]

    /// The agent writes a rich message of `kind` (one of ``richKinds``) in a thread.
    @discardableResult
    package func agentOffers(threadID: String, kind: String) throws(SimulatorError) -> CXoneGatewayMessage {
        guard let content = self.richContent(kind) else {
            throw SimulatorError(.callState, "no rich message kind \(kind); use one of \(Self.richKinds.joined(separator: ", "))")
        }
        return try self.agentSends(threadID: threadID, content: content)
    }

    private func richContent(_ kind: String) -> GMSJSON? {
        func button(_ text: String, _ postback: String) -> GMSJSON {
            ["type": "REPLY_BUTTON", "text": .string(text), "postback": .string(postback)]
        }
        switch kind {
        case "quick-replies":
            return [
                "type": "QUICK_REPLIES",
                "payload": [
                    "text": ["content": "Which topic?"],
                    "actions": [button("Billing", #"{"topic":"billing"}"#), button("Delivery", #"{"topic":"delivery"}"#)],
                ],
                "fallbackText": "Which topic? Billing, Delivery",
            ]
        case "list-picker":
            return [
                "type": "LIST_PICKER",
                "payload": [
                    "title": ["content": "Our stores"],
                    "text": ["content": "Pick the nearest"],
                    "actions": [button("Prague", #"{"store":"prg"}"#), button("Brno", #"{"store":"brq"}"#), button("Ostrava", #"{"store":"osr"}"#)],
                ],
                "fallbackText": "Our stores",
            ]
        case "rich-link":
            return [
                "type": "RICH_LINK",
                "payload": [
                    "title": ["content": "Track your parcel"],
                    "url": "https://example.com/track?id=42",
                    "media": ["fileName": "parcel.png", "url": "https://example.com/parcel.png", "mimeType": "image/png"],
                ],
                "fallbackText": "Track your parcel",
            ]
        case "inactivity-popup":
            let started = SimCXoneTime.format(Date(timeIntervalSince1970: self.now()))
            // The expire button first: the SDK tells the refresh button by its postback, not its place.
            return [
                "type": "PLUGIN",
                "payload": [
                    "elements": [
                        [
                            "id": .string(SimCXoneID.random()),
                            "type": "INACTIVITY_POPUP",
                            "elements": [
                                ["id": .string(SimCXoneID.random()), "type": "TITLE", "text": "Are you still there?"],
                                ["id": .string(SimCXoneID.random()), "type": "TEXT", "text": "The chat has been quiet for a while."],
                                ["id": .string(SimCXoneID.random()), "type": "TEXT", "text": "Let us know to keep it open."],
                                [
                                    "id": .string(SimCXoneID.random()), "type": "COUNTDOWN",
                                    "variables": ["startedAt": .string(started), "numberOfSeconds": 60],
                                ],
                                [
                                    "id": .string(SimCXoneID.random()), "type": "BUTTON", "text": "End the chat",
                                    "postback": #"{"action":"expire","isExpired": true}"#,
                                ],
                                [
                                    "id": .string(SimCXoneID.random()), "type": "BUTTON", "text": "I'm still here",
                                    "postback": #"{"action":"refresh","isExpired": false}"#,
                                ],
                            ],
                        ]
                    ]
                ],
                "fallbackText": "Are you still there?",
            ]
        default:
            return nil
        }
    }

    /// A customer's message that answers an inactivity popup (`parameters.isInactivityPopupAnswer`) with
    /// the button that does not keep the session (its postback lacks `"isExpired": false`) ends the
    /// thread's contact, as the live chat expires.
    func expiresSession(_ message: SimCXoneSentMessage) -> Bool {
        guard message.content["parameters"]?["isInactivityPopupAnswer"] == .bool(true) else { return false }
        let postback = message.content["postback"]?.string ?? ""
        let compact = postback.filter { !$0.isWhitespace }
        return !compact.contains(#""isExpired":false"#)
    }
}
