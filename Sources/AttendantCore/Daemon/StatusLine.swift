/// The one-line summary for systemd's `STATUS=` and `systemctl --user status attendantd`.
package enum StatusLine {
    /// `2 channels listening` or `desk listening; support recovering (connection refused); …`.
    package static func summarize(_ statuses: [ChannelStatus]) -> String {
        if statuses.isEmpty { return "no channels configured" }
        if statuses.allSatisfy({ $0.state == .listening }) {
            return statuses.count == 1 ? "\(statuses[0].name) listening" : "\(statuses.count) channels listening"
        }
        return statuses.map { status in
            var part = "\(status.name) \(status.state.rawValue)"
            if status.onProbation { part += " on probation" }
            if let detail = status.detail, status.state != .listening {
                part += " (\(detail.count > 80 ? detail.prefix(77) + "..." : detail))"
            }
            return part
        }.joined(separator: "; ")
    }
}
