/// The `[links]` table: how links that channels open for the person (in-app action buttons) are
/// handled. Every link goes through the same checks (``LinkOpener``): its scheme, then the URL
/// handler a D-Bus client registered, then ``command``, then ``opener``.
package struct LinkSettings: Sendable, Equatable {
    /// Schemes opened besides `http` and `https` (for example `mailto`, `tel`), lower case.
    package var schemes: [String] = []
    /// A command that may claim links before they are opened: it runs with the URL as its last argument
    /// (or in place of every `{url}`); exit status 0 means "claimed" (it took care of the link), 1 means
    /// "not mine" (the link is opened as usual), anything else is a failure, logged, and the link is
    /// opened as usual. Still running after ``handlerTimeout``: claimed (a launcher busy with the link).
    package var command: [String]? = nil
    /// How long a URL handler (the D-Bus client's `ShouldOpenURL` or ``command``) may take to decide;
    /// no answer in time counts as "open it", as the SDKs' default `shouldOpenURL`.
    package var handlerTimeout: Duration = .seconds(2)
    /// The program that opens a link, with the URL as its last argument.
    package var opener: [String] = ["xdg-open"]

    package static let alwaysAllowedSchemes = ["http", "https"]
    package static let longestHandlerTimeout: Duration = .seconds(30)

    package init() {}

    /// Every scheme that may be opened.
    package var allowedSchemes: [String] { Self.alwaysAllowedSchemes + self.schemes }
}
