import Foundation
import Glibc
import TestSupport

// A real sound server for the ring tests (issue 30 part 5): Debian 12's PulseAudio 16 in a scratch folder,
// with one null sink as the default (module-null-sink: it plays into nothing, and its monitor source gives
// back what was played), reachable only through a private unix socket ($PULSE_SERVER for the clients).
//
// Facts measured with Debian 12's pulseaudio 16.1 and libcanberra 0.30:
//   - `pulseaudio -n -F FILE --daemonize=no` loads only FILE's modules; as root it warns and runs.
//   - libcanberra's pulse backend plays a sound as one sink input whose `application.name` is the context's
//     (`pactl list sink-inputs`); ca_context_cancel removes it at once.
//   - `parec --device=SINK.monitor --raw` reads what the sink plays (silence is all zero samples).
//   - The PulseAudio client does not autospawn a server as root, so a daemon without $PULSE_SERVER and
//     without $XDG_RUNTIME_DIR/pulse/native finds none.

/// PulseAudio with a null sink, for one test; stopped (and its folder removed) at `stop()` or release.
package final class SoundServer: Sendable {
    package static let sink = "attendant_test"

    package let directory: String
    /// `unix:…/native`: what $PULSE_SERVER says for a client of this server.
    package let address: String
    private let children: FixtureChildren

    package init() async throws {
        let directory = try makeTemporaryFolder("attendant-sound")
        let socket = directory + "/native"
        try """
        load-module module-native-protocol-unix socket=\(socket) auth-anonymous=1
        load-module module-null-sink sink_name=\(Self.sink) sink_properties=device.description=Attendant-test-sink
        set-default-sink \(Self.sink)
        """.write(toFile: directory + "/default.pa", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory
        environment["XDG_RUNTIME_DIR"] = directory
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        let children = FixtureChildren(directory: directory)
        let process = try fixtureDaemon(
            "pulseaudio",
            try installedTool("pulseaudio"),
            [
                "-n", "-F", directory + "/default.pa", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes",
                "--log-target=stderr",
            ],
            environment: environment
        )
        children.add(process) { $0.terminate(within: 5) }
        self.directory = directory
        self.address = "unix:" + socket
        self.children = children
        do {
            try await eventually("pulseaudio to answer on \(socket)") {
                guard process.isRunning else { throw FixtureError("pulseaudio did not start: \(process.report)") }
                return try await self.pactl("info").status == 0
            }
        } catch {
            children.stop()
            throw FixtureError("\(error)\n\(process.report)")
        }
    }

    /// The environment a client of this server needs.
    package var clientEnvironment: [String: String] { ["PULSE_SERVER": self.address] }

    /// `pactl ARGUMENTS` against this server.
    package func pactl(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = self.address
        return try await runTool(try installedTool("pactl"), arguments, environment: environment, within: 60)
    }

    /// The properties of every stream playing now (`application.name`, `event.id`, `media.filename`, …),
    /// one dictionary per sink input.
    package func playingStreams() async throws -> [[String: String]] {
        let listing = try await self.pactl("list", "sink-inputs")
        guard listing.status == 0 else { throw FixtureError("pactl list sink-inputs failed: \(listing.stderr)") }
        var streams: [[String: String]] = []
        for line in listing.stdout.split(separator: "\n") {
            if line.hasPrefix("Sink Input #") {
                streams.append([:])
                continue
            }
            // "\t\tapplication.name = \"Attendant\""
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !streams.isEmpty, let equals = text.range(of: " = \""), text.hasSuffix("\"") else { continue }
            streams[streams.count - 1][String(text[..<equals.lowerBound])] = String(text[equals.upperBound...].dropLast())
        }
        return streams
    }

    /// The streams of `application` playing now.
    package func streams(of application: String) async throws -> [[String: String]] {
        try await self.playingStreams().filter { $0["application.name"] == application }
    }

    /// The loudest sample (16-bit, mono, 8 kHz) of the next `seconds` of what the null sink plays, read back
    /// from its monitor with parec: 0 is silence. It returns once that much sound has been read.
    package func peakLevel(over seconds: Double) async throws -> Int {
        let file = self.directory + "/recorded-\(UUID().uuidString).raw"
        defer { try? FileManager.default.removeItem(atPath: file) }
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = self.address
        let bytes = Int(seconds * 8000) * 2
        // To standard output (given a file name, parec writes a sound file through libsndfile), cut after
        // `bytes` by head: the recording ends by its length, not by a timer.
        let recorded = try await runTool(
            "/bin/sh",
            [
                "-c",
                "\"$0\" --device=\(Self.sink).monitor --raw --format=s16le --channels=1 --rate=8000 --latency-msec=20 | head -c \(bytes) > \"$1\"",
                try installedTool("parec"), file,
            ],
            environment: environment,
            within: 30 + seconds
        )
        let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
        guard data.count == bytes else {
            throw FixtureError("parec recorded \(data.count) of \(bytes) bytes from \(Self.sink).monitor: \(recorded.stderr)")
        }
        var peak = 0
        data.withUnsafeBytes { raw in
            for sample in raw.bindMemory(to: Int16.self) { peak = max(peak, abs(Int(Int16(littleEndian: sample)))) }
        }
        return peak
    }

    package func stop() { self.children.stop() }

    deinit { self.stop() }
}
