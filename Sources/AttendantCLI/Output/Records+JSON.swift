public import AttendantControl
public import Systemd

// The JSON shapes `--json` prints. Keys are stable: add new keys at the end, never rename or drop one.
// Absent values are null, never left out; times are Unix seconds, durations seconds.

extension StatusRecord {
    /// `{"version","status","pid","doNotDisturb","notificationServer","channels","listening"}`
    public var json: JSON {
        .object([
            ("version", .string(self.version)),
            ("status", .string(self.status)),
            ("pid", .int(Int64(self.pid))),
            ("doNotDisturb", .bool(self.doNotDisturb)),
            ("notificationServer", .bool(self.notificationServer)),
            ("channels", .int(Int64(self.channels))),
            ("listening", .int(Int64(self.listening))),
        ])
    }
}

extension ChannelRecord {
    /// `{"name","plugin","state","detail","onProbation","tokenExpiresIn","tokenLastRenewal","tokenLastError","tokenFailures","failure"}`
    public var json: JSON {
        .object([
            ("name", .string(self.name)),
            ("plugin", .string(self.plugin)),
            ("state", .string(self.state)),
            ("detail", .string(self.detail)),
            ("onProbation", .bool(self.onProbation)),
            ("tokenExpiresIn", .optional(self.tokenExpiresIn, JSON.int)),
            ("tokenLastRenewal", .optional(self.tokenLastRenewal, JSON.int)),
            ("tokenLastError", .optional(self.tokenLastError, JSON.string)),
            ("tokenFailures", .int(Int64(self.tokenFailures))),
            ("failure", .optional(self.failure?.rawValue, JSON.string)),
        ])
    }
}

extension ContactRecord {
    /// `{"channel","id","kind","from","fromAddress","fromAsserted","divertedFrom","summary","receivedAt","endedAt","outcome"}`,
    /// divertedFrom `{"name","address","reason"}` or null.
    public var json: JSON {
        .object([
            ("channel", .string(self.channel)),
            ("id", .string(self.id)),
            ("kind", .string(self.kind)),
            ("from", .string(self.from)),
            ("fromAddress", .string(self.fromAddress)),
            ("fromAsserted", .bool(self.fromAsserted)),
            (
                "divertedFrom",
                .optional(self.divertedFromAddress) { address in
                    .object([
                        ("name", .string(self.divertedFrom ?? "")), ("address", .string(address)), ("reason", .string(self.diversionReason ?? "")),
                    ])
                }
            ),
            ("summary", .string(self.summary)),
            ("receivedAt", .int(self.receivedAt)),
            ("endedAt", .optional(self.endedAt, JSON.int)),
            ("outcome", .optional(self.outcome, JSON.string)),
        ])
    }
}

extension ChatThreadRecord {
    /// `{"id","name","state","lastMessages":[…]}`, and `assignedAgent`, `positionInQueue` when known.
    public var json: JSON {
        var fields: [(String, JSON)] = [
            ("id", .string(self.id)),
            ("name", .string(self.name)),
            ("state", .string(self.state)),
            ("lastMessages", .array(self.lastMessages.map(\.json))),
        ]
        if let agent = self.assignedAgent { fields.append(("assignedAgent", .string(agent))) }
        if let position = self.positionInQueue { fields.append(("positionInQueue", .int(position))) }
        return .object(fields)
    }
}

extension ChatMessageRecord {
    /// `{"id","threadID","kind","direction","sender","senderAddress","text","sentAt"}`, and `readByAgentAt`
    /// when the agent read it, `choices` (`[{"id","label","url"?}]`) when it offers answers, `attachments`
    /// (`[{"id","name","mimeType","size"?}]`) when files came with it.
    public var json: JSON {
        var fields: [(String, JSON)] = [
            ("id", .string(self.id)),
            ("threadID", .string(self.threadID)),
            ("kind", .string(self.kind)),
            ("direction", .string(self.direction)),
            ("sender", .string(self.sender)),
            ("senderAddress", .string(self.senderAddress)),
            ("text", .string(self.text)),
            ("sentAt", .int(self.sentAt)),
        ]
        if let read = self.readByAgentAt { fields.append(("readByAgentAt", .int(read))) }
        if let choices = self.choices {
            fields.append(
                (
                    "choices",
                    .array(
                        choices.map { choice in
                            .object(
                                [("id", .string(choice.id)), ("label", .string(choice.label))] + (choice.url.map { [("url", JSON.string($0))] } ?? [])
                            )
                        }
                    )
                )
            )
        }
        if let attachments = self.attachments {
            fields.append(
                (
                    "attachments",
                    .array(
                        attachments.map { file in
                            .object(
                                [("id", .string(file.id)), ("name", .string(file.name)), ("mimeType", .string(file.mimeType))]
                                    + (file.size.map { [("size", JSON.int($0))] } ?? [])
                            )
                        }
                    )
                )
            )
        }
        return .object(fields)
    }
}

extension HealthReport {
    /// `{"status","exitCode","summary","problems":[{"status","channel","text"}],"perfdata":[…]}`
    public var json: JSON {
        .object([
            ("status", .string(self.status.label)),
            ("exitCode", .int(Int64(self.status.exitCode))),
            ("summary", .string(self.summary)),
            (
                "problems",
                .array(
                    self.problems.map { problem in
                        .object([
                            ("status", .string(problem.status.label)),
                            ("channel", .optional(problem.channel, JSON.string)),
                            ("text", .string(problem.text)),
                        ])
                    }
                )
            ),
            ("perfdata", .array(self.perfdata.map(JSON.string))),
        ])
    }
}

extension ControlSignal {
    /// One `monitor --json` line: `{"time","signal",…}` with the signal's arguments by name.
    public func json(time: Int64) -> JSON {
        switch self {
        case .channelEvent(let channel, let event, let details):
            .object([
                ("time", .int(time)), ("signal", .string(ControlInterface.Signal.channelEvent)),
                ("channel", .string(channel)), ("event", .string(event)),
                ("details", .object(details.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })),
            ])
        case .channelStateChanged(let channel, let state, let detail):
            .object([
                ("time", .int(time)), ("signal", .string(ControlInterface.Signal.channelStateChanged)),
                ("channel", .string(channel)), ("state", .string(state)), ("detail", .string(detail)),
            ])
        case .doNotDisturbChanged(let on):
            .object([("time", .int(time)), ("signal", .string(ControlInterface.Signal.doNotDisturbChanged)), ("doNotDisturb", .bool(on))])
        }
    }
}

extension BusValue {
    /// D-Bus values as JSON: numbers, strings, booleans; arrays and structures as arrays; dictionaries
    /// with string keys as objects (sorted), others as `[[key, value], …]`; variants unwrapped.
    public var json: JSON {
        switch self {
        case .byte(let v): .int(Int64(v))
        case .boolean(let v): .bool(v)
        case .int16(let v): .int(Int64(v))
        case .uint16(let v): .int(Int64(v))
        case .int32(let v): .int(Int64(v))
        case .uint32(let v): .int(Int64(v))
        case .int64(let v): .int(v)
        case .uint64(let v): Int64(exactly: v).map(JSON.int) ?? .double(Double(v))
        case .double(let v): .double(v)
        case .string(let v), .objectPath(let v), .signature(let v): .string(v)
        case .unixFD(let v): .int(Int64(v))
        case .array(_, let values), .structure(let values): .array(values.map(\.json))
        case .dictionary(_, _, let entries):
            if let strings = self.stringDictionary {
                .object(strings.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })
            } else {
                .array(entries.map { .array([$0.key.json, $0.value.json]) })
            }
        case .variant(let inner): inner.json
        }
    }
}
