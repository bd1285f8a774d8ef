package import AttendantPluginAPI
package import AttendantPluginKit

/// What Attendant shows of an action: a title, a body and links, as a desktop notification.
///
/// KARTE's popup content schema is NOT PUBLIC (karte.md §1: the SDKs never read `action.content`; the
/// overlay's JavaScript renders it). Attendant therefore defines the fields its campaigns, and the
/// simulator's, carry inside `action.content`, and keeps the whole action for viewers that know better:
///
/// | field | shown as | when absent or not of that type |
/// |---|---|---|
/// | `content.title` (string) | the notification's summary | `content.name`, else ``defaultTitle`` |
/// | `content.body` (string) | the notification's body | the text of `content.html` (tags dropped, the five XML entities and `&nbsp;` decoded, blanks collapsed), else empty |
/// | `content.links` (array of `{label, url, target}`) | one button per link | no buttons; a link without a string `url` is skipped, `label` defaults to the url, `target` to `_self` |
///
/// Content is read leniently (a wrong type falls back as above) because it is the campaign's own business;
/// only the fields the SDKs' routing relies on are checked strictly, by ``KarteMessage``.
package struct KarteActionContent: Sendable, Hashable {
    package var title: String
    package var body: String
    package var links: [Link]

    package static let defaultTitle = "KARTE"
    /// A body made from HTML is cut here, on a character boundary.
    package static let maximumBodyCharacters = 1000

    package struct Link: Sendable, Hashable {
        package var label: String
        package var url: String
        /// `_blank` keeps the action shown after a click; any other target resets (karte.md §2, "Link clicks").
        package var target: String

        package init(label: String, url: String, target: String = "_self") {
            self.label = label
            self.url = url
            self.target = target
        }

        package var keepsActionOpen: Bool { self.target == "_blank" }
    }

    package init(title: String, body: String, links: [Link] = []) {
        self.title = title
        self.body = body
        self.links = links
    }

    package init(content: [String: JSONValue]) {
        self.title = content["title"]?.stringValue ?? content["name"]?.stringValue ?? Self.defaultTitle
        if let body = content["body"]?.stringValue {
            self.body = body
        } else if let html = content["html"]?.stringValue {
            self.body = String(Self.text(ofHTML: html).prefix(Self.maximumBodyCharacters))
        } else {
            self.body = ""
        }
        self.links = (content["links"]?.arrayValue ?? []).compactMap { link in
            guard let url = link["url"]?.stringValue else { return nil }
            return Link(label: link["label"]?.stringValue ?? url, url: url, target: link["target"]?.stringValue ?? "_self")
        }
    }

    /// The plugin API's view of a shown action.
    package func inAppAction(id: String, campaignID: String, onlyOnSendingScreen: Bool) -> InAppAction {
        InAppAction(
            id: id,
            campaignID: campaignID,
            title: self.title,
            body: self.body,
            links: self.links.map { InAppAction.Link(label: $0.label, url: $0.url) },
            onlyOnSendingScreen: onlyOnSendingScreen
        )
    }

    /// Text for a notification body: markup dropped (`<style>`/`<script>` with their contents), entities
    /// decoded, runs of blanks made one space.
    static func text(ofHTML html: String) -> String {
        // On UTF-8 bytes: '<' and '>' never occur inside a multi-byte sequence.
        let bytes = Array(html.utf8)
        func matches(_ word: String, at start: Int) -> Bool {
            let word = Array(word.utf8)
            guard start + word.count <= bytes.count else { return false }
            return (0..<word.count).allSatisfy { offset in
                let byte = bytes[start + offset]
                return ((65...90).contains(byte) ? byte + 32 : byte) == word[offset]
            }
        }
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            if let element = ["script", "style"].first(where: { matches("<\($0)", at: index) }) {
                let closing = "</\(element)>"
                while index < bytes.count, !matches(closing, at: index) { index += 1 }
                index += closing.utf8.count
            } else {
                while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
                index += 1
            }
            output.append(UInt8(ascii: " "))
        }
        var text = String(decoding: output, as: UTF8.self)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&nbsp;", " "), ("&amp;", "&")]
        {
            text = text.replacing(entity, with: character)
        }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
