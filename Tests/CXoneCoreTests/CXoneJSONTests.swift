import CXoneCore
import Foundation
import Testing

/// Free-form JSON keeps integers exact (the simulator's own codec showed that an integer past 2^53 in a
/// rich payload came back changed when every number was a Double) and numbers compare by value.
@Suite struct CXoneJSONTests {
    @Test func largeIntegersRoundTripExactly() throws {
        let text = #"{"big":9007199254740993,"small":-42,"fraction":1.5,"exponent":1e3}"#
        let json = try JSONDecoder().decode(CXoneJSON.self, from: Data(text.utf8))
        #expect(json["big"] == .integer(9_007_199_254_740_993))
        #expect(json["small"] == .integer(-42))
        #expect(json["fraction"] == .number(1.5))
        let written = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        #expect(written.contains("9007199254740993"))
    }

    @Test func numbersCompareAndHashByValue() {
        #expect(CXoneJSON.integer(5) == .number(5))
        #expect(CXoneJSON.number(5) == .integer(5))
        #expect(CXoneJSON.integer(5) != .number(5.5))
        #expect(CXoneJSON.integer(5) != .string("5"))
        #expect(Set<CXoneJSON>([.integer(5), .number(5)]).count == 1)
    }
}
