/// The `[metrics]` table: where the daemon's figures are served in the Prometheus text format besides
/// `attendantctl metrics`.
package struct MetricsSettings: Sendable, Equatable {
    /// `listen = "127.0.0.1:9464"`: the address of an HTTP endpoint serving `/metrics`; nil, the default,
    /// serves none.
    package var listen: Address? = nil

    package init() {}

    /// A host (an IPv4 or IPv6 literal or a name) and a TCP port.
    package struct Address: Sendable, Equatable, CustomStringConvertible {
        package var host: String
        package var port: Int

        package init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// Reads `host:port`, with an IPv6 host in brackets (`[::1]:9464`); nil when it is not that form.
        package init?(_ text: String) {
            let host: Substring
            let port: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
                host = text[text.index(after: text.startIndex)..<close]
                port = text[text.index(close, offsetBy: 2)...]
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                host = text[..<colon]
                port = text[text.index(after: colon)...]
                guard !host.contains(":") else { return nil }
            }
            guard !host.isEmpty, let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isNumber) else { return nil }
            self.init(host: String(host), port: number)
        }

        package var description: String { self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)" }
    }
}

extension TableReader {
    /// The `[metrics]` table.
    mutating func metricsSettings() -> MetricsSettings {
        var metrics = MetricsSettings()
        if let listen = self.string("listen") {
            if let address = MetricsSettings.Address(listen) {
                metrics.listen = address
            } else {
                self.problem(
                    .invalidValue,
                    "listen",
                    "expected an address and port such as \"127.0.0.1:9464\" or \"[::1]:9464\", found \"\(listen)\""
                )
            }
        }
        return metrics
    }
}
