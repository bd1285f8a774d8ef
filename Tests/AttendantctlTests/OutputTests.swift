import AttendantCLI
import AttendantControl
import Systemd
import Testing

/// What the commands print: JSON shapes and escaping, tables, times.
@Suite struct OutputTests {
    @Test func jsonEscapesWhatItMustAndKeepsKeyOrder() {
        let value = JSON.object([
            ("z", .string("quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} é 🙂 </b>")),
            ("a", .array([.null, .bool(true), .int(-3), .double(1.5), .double(.nan)])),
            ("empty", .object([])),
        ])
        #expect(
            value.text
                == #"{"z":"quote \" backslash \\ newline \n tab \t bell \u0007 del \u007f é 🙂 </b>","a":[null,true,-3,1.5,null],"empty":{}}"#
        )
    }

    @Test func statusJSON() {
        #expect(
            Fixtures.status.json.text
                == #"{"version":"attendantd 0.1.0","status":"2 channels listening","pid":4242,"doNotDisturb":false,"notificationServer":true,"channels":2,"listening":2}"#
        )
    }

    @Test func channelJSONHasEveryKeyWithNullsForAbsentValues() {
        let channels = Fixtures.channels
        #expect(
            channels[0].json.text
                == #"{"name":"desk","plugin":"loopback","state":"listening","detail":"","onProbation":false,"tokenExpiresIn":3000,"tokenLastRenewal":1763800000,"tokenLastError":null,"tokenFailures":0,"failure":null}"#
        )
        #expect(
            channels[1].json.text
                == #"{"name":"voice","plugin":"sip","state":"listening","detail":"","onProbation":false,"tokenExpiresIn":null,"tokenLastRenewal":null,"tokenLastError":null,"tokenFailures":0,"failure":null}"#
        )
    }

    @Test func channelFailureTravelsOverTheBusAndIntoJSON() {
        let failed = ChannelRecord(name: "ghost", plugin: "sip", state: "failed", detail: "sign-in needed: refused", failure: .signInNeeded)
        #expect(ChannelRecord(failed.busValue) == failed)
        #expect(failed.json.text.hasSuffix(#""tokenFailures":0,"failure":"sign-in-needed"}"#))
        // A daemon that does not send Failure (older, or a channel that has not failed): nil, null in JSON.
        let listening = ChannelRecord(name: "desk", plugin: "loopback", state: "listening")
        #expect(ChannelRecord(listening.busValue)?.failure == nil)
    }

    @Test func contactJSON() {
        #expect(
            Fixtures.contacts[1].json.text
                == #"{"channel":"desk","id":"desk-1","kind":"chat","from":"","fromAddress":"sip:bob@example.test","fromAsserted":false,"divertedFrom":null,"summary":"Line one\nline two","receivedAt":1763800000,"endedAt":1763800060,"outcome":"answered"}"#
        )
        #expect(Fixtures.contacts[0].json.text.contains(#""from":"Ann \"Q\" Lee""#))
        #expect(Fixtures.contacts[0].json.text.hasSuffix(#""endedAt":null,"outcome":null}"#))
    }

    @Test func healthJSON() {
        let report = HealthReport.evaluate(
            [ChannelRecord(name: "desk", plugin: "loopback", state: "recovering", detail: "refused")],
            tokenWarning: 900
        )
        #expect(
            report.json.text
                == #"{"status":"WARNING","exitCode":1,"summary":"desk recovering: refused","problems":[{"status":"WARNING","channel":"desk","text":"desk recovering: refused"}],"perfdata":["channels=1;;;0","listening=0;;;0"]}"#
        )
    }

    @Test func signalJSONAndBusValues() {
        let event = ControlSignal.channelEvent(
            channel: "desk",
            event: "incoming-contact",
            details: ["contact": .string("desk-3"), "ringing": .boolean(true), "n": .uint32(2), "tags": .strings(["a", "b"])]
        )
        #expect(
            event.json(time: 100).text
                == #"{"time":100,"signal":"ChannelEvent","channel":"desk","event":"incoming-contact","details":{"contact":"desk-3","n":2,"ringing":true,"tags":["a","b"]}}"#
        )
        #expect(
            ControlSignal.channelStateChanged(channel: "desk", state: "recovering", detail: "x").json(time: 1).text
                == #"{"time":1,"signal":"ChannelStateChanged","channel":"desk","state":"recovering","detail":"x"}"#
        )
        #expect(ControlSignal.doNotDisturbChanged(true).json(time: 1).text == #"{"time":1,"signal":"DoNotDisturbChanged","doNotDisturb":true}"#)
        let odd = BusValue.dictionary(key: "u", value: "s", [.init(.uint32(1), .string("one"))])
        #expect(odd.json.text == #"[[1,"one"]]"#)
        #expect(BusValue.uint64(.max).json.text == "1.8446744073709552e+19")
    }

    @Test func tablesAlignAndStayOnOneLinePerRow() {
        var table = Table(["NAME", "STATE", "DETAIL"])
        table.append(["desk", "listening", ""])
        table.append(["voice-long", "failed", "line\nbreak"])
        #expect(table.lines == ["NAME        STATE      DETAIL", "desk        listening", "voice-long  failed     line break"])
    }

    @Test func channelAndContactTables() {
        let channels = ChannelRecord.table([
            ChannelRecord(
                name: "desk",
                plugin: "loopback",
                state: "recovering",
                detail: "refused",
                onProbation: true,
                tokenExpiresIn: 840,
                tokenLastError: "HTTP 503",
                tokenFailures: 1
            ),
            ChannelRecord(name: "ghost", plugin: "sip", state: "failed", tokenExpiresIn: -60),
        ])
        #expect(channels[0].hasPrefix("NAME   PLUGIN    STATE                   TOKEN              RENEWED  DETAIL"))
        #expect(channels[1] == "desk   loopback  recovering (probation)  expires in 14 min  -        refused; token renewal failed: HTTP 503")
        #expect(channels[2] == "ghost  sip       failed                  expired 1 min ago  -")
        #expect(ChannelRecord.table([]) == ["No channels configured."])
        #expect(ContactRecord.table([]) == ["No contacts yet."])
        let contacts = ContactRecord.table(Fixtures.contacts)
        #expect(contacts.count == 3)
        #expect(contacts[2].hasSuffix("desk     chat  sip:bob@example.test  desk-1  answered  Line one line two"))
    }

    @Test func timesAreFormattedAsDateAndTime() {
        #expect(LocalTime.format(1_763_800_000, utc: true) == "2025-11-22 08:26:40")
        let local = LocalTime.format(1_763_800_000)
        #expect(local.count == 19 && local.split(separator: " ").count == 2)
    }

    @Test func monitorLines() {
        let event = ControlSignal.channelEvent(
            channel: "desk",
            event: "incoming-contact",
            details: ["ID": .string("c1"), "From": .string("Ann Lee"), "Actions": .strings(["accept", "decline"]), "At": .int64(5)]
        )
        let line = event.text(time: 0)
        #expect(line.hasSuffix(#"  desk  incoming-contact  Actions=accept,decline At=5 From="Ann Lee" ID=c1"#))
        #expect(
            ControlSignal.channelStateChanged(channel: "desk", state: "failed", detail: "sign-in needed: x").text(time: 0).hasSuffix(
                "  desk  state failed: sign-in needed: x"
            )
        )
        #expect(ControlSignal.doNotDisturbChanged(false).text(time: 0).hasSuffix("  do-not-disturb off"))
    }
}
