extension AttendantConfiguration {
    /// The keys the daemon reads, by table: `""` for the top level (the tables), `daemon`, `channel` (a
    /// `[[channel]]`'s own keys, without its plugin's table), `alerts`, `session`, `links` and `metrics`.
    ///
    /// Found by reading a configuration in which every table is present and empty, with the reader that
    /// reads real files: it asks for every key of a table it reads, present or not (the same list that
    /// its "unknown key" messages give), so a key added to the reader shows up here without a list kept by
    /// hand. attendant.toml(5) is checked against it (`ManPageTests`).
    package static let knownKeys: [String: [String]] = {
        let tables = AttendantConfiguration.read(ConfigurationTree()).keys[""] ?? []
        // `channel` is the one array of tables ([[channel]]); every other top-level key is a table.
        let text = tables.map { $0 == "channel" ? "[[channel]]" : "[\($0)]" }.joined(separator: "\n")
        do {
            return AttendantConfiguration.read(try ConfigurationTree(toml: text, file: nil)).keys
        } catch {
            preconditionFailure("a configuration of empty tables is valid TOML: \(error)")
        }
    }()
}
