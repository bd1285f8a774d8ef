import CXoneCore
import Foundation
import TestSupport
import Testing

/// The hand-written ISO-8601 reader against the variants CXone sends, and ids that differ only in case.
@Suite(.cpuBound) struct WireTimestampTests {
    static let noon = Date(timeIntervalSince1970: 1_714_564_800)  // 2024-05-01T12:00:00Z

    @Test(arguments: [
        ("2024-05-01T12:00:00Z", 0.0),
        ("2024-05-01T12:00:00z", 0.0),
        ("2024-05-01t12:00:00Z", 0.0),
        ("2024-05-01 12:00:00Z", 0.0),
        ("2024-05-01T12:00:00", 0.0),
        ("2024-05-01T12:00:00.000Z", 0.0),
        ("2024-05-01T12:00:00.5Z", 0.5),
        ("2024-05-01T12:00:00.123Z", 0.123),
        ("2024-05-01T12:00:00.123456Z", 0.123456),
        ("2024-05-01T12:00:00.123456789Z", 0.123456789),
        ("2024-05-01T12:00:00.1234567891234Z", 0.123456789),
        ("2024-05-01T14:00:00+02:00", 0.0),
        ("2024-05-01T14:00:00+0200", 0.0),
        ("2024-05-01T14:00:00+02", 0.0),
        ("2024-05-01T14:00:00.250+0200", 0.25),
        ("2024-05-01T06:30:00-05:30", 0.0),
        ("2024-05-01T12:00:00+00:00", 0.0),
        ("2024-05-01T12:00:00-0000", 0.0),
    ])
    func variants(_ text: String, _ fraction: Double) throws {
        let date = try #require(CXoneTimestamp.parse(text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - (Self.noon.timeIntervalSince1970 + fraction)) < 1e-6, "\(text)")
    }

    @Test(arguments: [
        "", "2024", "2024-05-01", "2024-05-01T12:00", "2024-5-01T12:00:00Z", "2024-05-01T12:00:00ZZ",
        "2024-13-01T12:00:00Z", "2024-00-01T12:00:00Z", "2023-02-29T12:00:00Z", "2024-04-31T12:00:00Z",
        "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z", "2024-05-01T12:00:61Z", "2024-05-01T12:00:00.Z",
        "2024-05-01T12:00:00+2", "2024-05-01T12:00:00+24:00", "2024-05-01T12:00:00+02:60", "2024-05-01T12:00:00+02:00x",
        "2024-05-01T12:00:00 Z", "２０２４-05-01T12:00:00Z", "2024-05-01T12:00:00." + String(repeating: "1", count: 40) + "Z",
    ])
    func rejects(_ text: String) {
        #expect(CXoneTimestamp.parse(text) == nil, "\(text)")
    }

    @Test func leapYearsAndEpochEdges() throws {
        #expect(CXoneTimestamp.parse("2024-02-29T00:00:00Z") != nil)
        #expect(CXoneTimestamp.parse("2000-02-29T00:00:00Z") != nil)
        #expect(CXoneTimestamp.parse("1900-02-29T00:00:00Z") == nil)
        #expect(CXoneTimestamp.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(abs((CXoneTimestamp.parse("1969-12-31T23:59:59.999Z")?.timeIntervalSince1970 ?? 0) + 0.001) < 1e-6)
        #expect(CXoneTimestamp.parse("0000-01-01T00:00:00Z")?.timeIntervalSince1970 == -62_167_219_200)
        #expect(CXoneTimestamp.parse("9999-12-31T23:59:59Z")?.timeIntervalSince1970 == 253_402_300_799)
    }

    @Test func formatWritesUTCMillisecondsAndParsesBackEqual() throws {
        #expect(CXoneTimestamp.format(Self.noon) == "2024-05-01T12:00:00.000Z")
        #expect(CXoneTimestamp.format(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(CXoneTimestamp.format(Date(timeIntervalSince1970: 1e15)) == "9999-12-31T23:59:59.999Z")
        #expect(CXoneTimestamp.format(Date(timeIntervalSince1970: -1e15)) == "0000-01-01T00:00:00.000Z")
        #expect(CXoneTimestamp.format(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(CXoneTimestamp.format(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        var generator = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            let text = CXoneTimestamp.format(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            let parsed = try #require(CXoneTimestamp.parse(text), "\(text)")
            #expect(CXoneTimestamp.format(parsed) == text)
            #expect(CXoneTimestamp.parse(CXoneTimestamp.format(parsed)) == parsed)
        }
    }

    @Test func idsCompareAndHashWithoutCase() {
        let upper: CXoneID = "A1B2C3D4-0000-4000-8000-00000000000F"
        let lower: CXoneID = "a1b2c3d4-0000-4000-8000-00000000000f"
        #expect(upper == lower)
        #expect(Set([upper, lower]).count == 1)
        #expect([lower: 1][upper] == 1)
        #expect(upper.rawValue == "A1B2C3D4-0000-4000-8000-00000000000F")
        #expect(upper != "a1b2c3d4-0000-4000-8000-00000000000e")
        #expect(CXoneID("ab") != CXoneID("abc"))
        #expect(CXoneID.equal("Ä-x", "Ä-X"))
        #expect(!CXoneID.equal("ä", "Ä"), "only ASCII letters fold")
        let random = CXoneID.random()
        #expect(random.rawValue == random.rawValue.lowercased())
        #expect(random.rawValue.count == 36)
    }
}
