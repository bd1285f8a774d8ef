import AttendantCore
import Testing

/// The `[session]` table, with the exact messages.
@Suite struct SessionConfigurationTests {
    let file = "/home/ada/.config/attendant/attendant.toml"

    @Test func defaultsAreSleepOnlyAndThreeSeconds() throws {
        let configuration = try AttendantConfiguration(toml: "", file: nil)
        #expect(configuration.session.backgroundOn == [.sleep])
        #expect(configuration.session.sleepDelay == .seconds(3))
    }

    @Test func keysAreRead() throws {
        let configuration = try AttendantConfiguration(
            toml: "[session]\nbackground-on = [\"sleep\", \"lock\"]\nsleep-delay = \"1500ms\"\n",
            file: nil
        )
        #expect(configuration.session.backgroundOn == [.sleep, .lock])
        #expect(configuration.session.sleepDelay == .milliseconds(1500))
        let none = try AttendantConfiguration(toml: "[session]\nbackground-on = []\n", file: nil)
        #expect(none.session.backgroundOn.isEmpty)
    }

    @Test func invalidValuesAndUnknownKeys() {
        do {
            _ = try AttendantConfiguration(
                toml: "[session]\nbackground-on = [\"sleep\", \"idle\"]\nsleep-delay = \"1m\"\nlock = true\n",
                file: self.file
            )
            Issue.record("expected errors")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "\(self.file):2: key \"background-on\" in [session]: unknown session event \"idle\"; expected some of \"sleep\", \"lock\"",
                    "\(self.file):3: key \"sleep-delay\" in [session]: expected a duration of at most 30 seconds, found the string \"1m\"",
                    "\(self.file):4: key \"lock\" in [session]: unknown key; [session] takes \"background-on\", \"sleep-delay\"",
                ]
            )
        }
    }
}
