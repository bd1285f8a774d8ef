/// Makes remote text safe to put into a notification.
///
/// A body is markup when the server has the `body-markup` capability: a subset of XML that servers parse
/// with Pango (GNOME, dunst) or Qt (KDE). Escaping `&`, `<` and `>` is what makes a remote party's `<b>`
/// or `&amp;` show literally. Quotes are left alone: the body has no attributes for them to end, and
/// `&apos;` is not an HTML 4 entity, so a Qt-based server could show it verbatim.
///
/// Control characters other than newline and tab are dropped everywhere: D-Bus strings cannot hold
/// U+0000, and GMarkup rejects the whole body for most of the others.
enum NotificationText {
    /// A body: plain text with its lines, escaped when `markup` is true.
    static func body(_ text: String, markup: Bool) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars where !Self.isDropped(scalar) || scalar == "\n" || scalar == "\t" {
            switch scalar {
            case "&" where markup: result += "&amp;"
            case "<" where markup: result += "&lt;"
            case ">" where markup: result += "&gt;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One line of plain text: line breaks and tabs become spaces, other control characters are
    /// dropped, and text longer than `limit` characters is cut with an ellipsis.
    static func line(_ text: String, limit: Int = 240) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\t" || scalar == "\r" {
                if !result.hasSuffix(" ") { result += " " }
            } else if !Self.isDropped(scalar) {
                result.unicodeScalars.append(scalar)
            }
        }
        guard result.count > limit else { return result }
        return String(result.prefix(limit - 1)) + "…"
    }

    /// C0 and C1 control characters and DEL.
    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
