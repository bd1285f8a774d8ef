import ArgumentParser
import AttendantControl

extension Attendantctl {
    struct Metrics: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the daemon's metrics in the Prometheus text format.",
            discussion: """
                The same text the optional HTTP endpoint serves at /metrics ([metrics] listen = \
                "127.0.0.1:9464" in the configuration; off by default), for a look by hand or for a \
                collector that runs commands (node_exporter's textfile collector, say). The figures \
                count from the daemon's start:

                attendant_channel_state{channel,plugin,state} (1 for the current state), \
                attendant_channel_listening_seconds_total{channel}, attendant_listen_attempts_total{channel}, \
                attendant_listen_failures_total{channel,class}, attendant_reconnects_total{channel}, \
                attendant_token_renewals_total{channel}, attendant_token_renewal_failures_total{channel,class}, \
                attendant_token_expiry_seconds{channel}, attendant_contacts_total{channel,kind,outcome} \
                (outcome rang when a contact arrives, then answered, answered-elsewhere, missed, declined \
                or completed), attendant_alert_latency_seconds{channel} (a histogram: a contact's arrival \
                to its desktop notification). A series appears once it has something to count.

                JSON: an object with the key metrics (the text).
                """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await Session.run(json: self.output.json) { client throws(ControlClientError) in
                let text = try await client.metrics()
                if self.output.json {
                    Terminal.out(JSON.object([("metrics", .string(text))]).text)
                } else if !text.isEmpty {
                    Terminal.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
                }
            }
        }
    }
}
