import CXoneCore
import Foundation
import Testing

/// Every class of wire error, with its exact message: what failed, where (size, field path, event type),
/// and never a field's value.
@Suite struct WireErrorTests {
    static func messageCreated(replacing old: String, with new: String) -> [UInt8] {
        WireSamples.bytes("message-created.json").text.replacingOccurrences(of: old, with: new).bytes
    }

    static func failure(_ bytes: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) -> CXoneWireError? {
        #expect(throws: CXoneWireError.self) { try CXoneInbound.decode(bytes, limits: limits) }
    }

    @Test func missingFieldNamesPathSizeAndEventType() throws {
        // The thread's id removed, and the frame padded to exactly 2 KiB.
        let stripped = Self.messageCreated(replacing: #""idOnExternalPlatform":"a1b2c3d4-0000-4000-8000-000000000001","#, with: "").text
        let padding = String(repeating: "x", count: 2048 - stripped.utf8.count - #""padding":"","#.utf8.count)
        let frame = stripped.replacingOccurrences(of: #"{"eventId""#, with: #"{"padding":"\#(padding)","eventId""#)
        #expect(frame.utf8.count == 2048)
        let error = try #require(Self.failure(frame.bytes))
        #expect(error.code == .missingField)
        #expect(error.message == "frame 2 KiB: data.thread.idOnExternalPlatform is missing in MessageCreated")
        #expect(error.description == "CXone missing-field: frame 2 KiB: data.thread.idOnExternalPlatform is missing in MessageCreated")
    }

    @Test func wrongTypeAndNull() throws {
        let wrong = Self.messageCreated(replacing: #""direction":"outbound""#, with: #""direction":5"#)
        let error = try #require(Self.failure(wrong))
        #expect(error.code == .wrongType)
        #expect((1024..<1536).contains(wrong.count))
        #expect(error.message == "frame 1 KiB: data.message.direction is not a string in MessageCreated")

        let null = #"{"eventId":"1","eventType":"MessageCreated","data":{"case":{"id":"C"},"thread":{"idOnExternalPlatform":"T"},"message":null}}"#
        #expect(Self.failure(null.bytes)?.message == "frame \(null.utf8.count) B: data.message is null in MessageCreated")
        #expect(Self.failure(null.bytes)?.code == .missingField)

        let array = Self.failure("[1]".bytes)
        #expect(array?.code == .wrongType)
        #expect(array?.message == "frame 3 B: top level is not an object")

        let messages =
            #"{"eventId":"1","postback":{"eventType":"ThreadRecovered","data":{"thread":{"idOnExternalPlatform":"T"},"messages":[{"idOnExternalPlatform":7}]}}}"#
        #expect(
            Self.failure(messages.bytes)?.message
                == "frame \(messages.utf8.count) B: postback.data.messages[0].idOnExternalPlatform is not a string in ThreadRecovered"
        )
    }

    @Test func invalidValuesDoNotQuoteTheValue() throws {
        let direction = Self.messageCreated(replacing: #""direction":"outbound""#, with: #""direction":"sideways""#)
        let error = try #require(Self.failure(direction))
        #expect(error.code == .invalidValue)
        #expect(error.message == #"frame 1 KiB: data.message.direction is neither "inbound" nor "outbound" in MessageCreated"#)

        let time = Self.messageCreated(replacing: #""createdAt":"2024-05-01T12:00:01.123+00:00""#, with: #""createdAt":"secret-token-1""#)
        let timeError = try #require(Self.failure(time))
        #expect(timeError.message == "frame 1 KiB: createdAt is not an ISO-8601 timestamp in MessageCreated")
        #expect(!timeError.description.contains("secret-token-1"))

        let s3 =
            #"{"eventId":"1","eventType":"EventInS3","data":{"s3Object":{"url":"file:///etc/passwd"},"originEvent":{"eventType":"MessageCreated"}}}"#
        #expect(Self.failure(s3.bytes)?.message == "frame \(s3.utf8.count) B: data.s3Object.url is not an http or https URL in EventInS3")
    }

    @Test func postbackAndEnvelopeFields() throws {
        let token = #"{"eventId":"1","postback":{"eventType":"TokenRefreshed","data":{}}}"#
        #expect(Self.failure(token.bytes)?.message == "frame \(token.utf8.count) B: postback.data.accessToken is missing in TokenRefreshed")
        let noId = #"{"eventType":"CaseCreated","data":{"case":{"id":"C"}}}"#
        #expect(Self.failure(noId.bytes)?.message == "frame \(noId.utf8.count) B: eventId is missing in CaseCreated")
        let noType = #"{"eventId":"1","postback":{"data":{}}}"#
        #expect(Self.failure(noType.bytes)?.message == "frame \(noType.utf8.count) B: postback.eventType is missing")
        let errorCode = #"{"eventId":"1","error":{"errorMessage":"x"}}"#
        #expect(Self.failure(errorCode.bytes)?.message == "frame \(errorCode.utf8.count) B: error.errorCode is missing")
    }

    @Test func syntaxEmptyAndUnrecognized() throws {
        #expect(Self.failure("{oops".bytes) == CXoneWireError(.notJSON, "frame 5 B: is not valid JSON"))
        #expect(Self.failure([0xFF, 0xFE, 0x7B]) == CXoneWireError(.notJSON, "frame 3 B: is not valid JSON"))
        #expect(Self.failure([]) == CXoneWireError(.notJSON, "frame 0 B: is empty"))
        #expect(Self.failure(" \n".bytes) == CXoneWireError(.notJSON, "frame 2 B: is empty"))
        #expect(Self.failure(#"{"hello":1}"#.bytes) == CXoneWireError(.unrecognized, "frame 11 B: has none of eventType, postback, error or message"))
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(Self.failure(deep.bytes) == CXoneWireError(.tooDeep, "frame 130 B: nested deeper than the limit of 64"))
        // Brackets inside strings do not count.
        let quoted = #"{"eventId":"1","eventType":"X","data":""# + String(repeating: "[", count: 100) + #""}"#
        #expect(throws: Never.self) { try CXoneInbound.decode(quoted.bytes) }

        let big = [UInt8](repeating: 0x20, count: (1 << 20) + 1)
        #expect(Self.failure(big) == CXoneWireError(.frameTooLarge, "frame 1 MiB: larger than the limit of 1 MiB"))
        let sample = WireSamples.bytes("thread-recovered.json")
        let small = CXoneWireLimits(maxFrameSize: 1024, maxDepth: 64)
        #expect(
            Self.failure(sample, limits: small)
                == CXoneWireError(
                    .frameTooLarge,
                    "frame \(sample.count / 1024 + (sample.count % 1024 >= 512 ? 1 : 0)) KiB: larger than the limit of 1 KiB"
                )
        )
        let shallow = CXoneWireLimits(maxFrameSize: 1 << 20, maxDepth: 3)
        #expect(Self.failure(sample, limits: shallow)?.code == .tooDeep)
    }

    @Test func longNamesAreCutAndControlCharactersReplaced() throws {
        let type = String(repeating: "A", count: 60) + "\\u0007"
        let frame = #"{"eventType":"\#(type)","data":{}}"#
        let error = try #require(Self.failure(frame.bytes))
        #expect(error.message == "frame \(frame.utf8.count) B: eventId is missing in \(String(repeating: "A", count: 48))…")
    }

    @Test func valuesThatCannotBeEncoded() throws {
        let frame = CXoneOutbound.frame(
            CXoneClientFrame(
                brandId: 1,
                channelId: "c",
                customer: .init(idOnExternalPlatform: "u"),
                event: .unknown(eventType: "Custom", data: .object(["x": .number(.nan)]))
            )
        )
        let error = #expect(throws: CXoneWireError.self) { try frame.encoded() }
        #expect(error == CXoneWireError(.encoding, "Custom frame: cannot be encoded (a number that is not finite)"))
    }

    @Test func clientFramesAndRESTBodies() throws {
        let noBrand =
            #"{"action":"chatWindowEvent","eventId":"1","payload":{"channel":{"id":"c"},"customerIdentity":{"idOnExternalPlatform":"u"},"eventType":"SendMessage"}}"#
        let error = #expect(throws: CXoneWireError.self) { try CXoneOutbound.decode(noBrand.bytes) }
        #expect(error?.message == "client frame \(noBrand.utf8.count) B: payload.brand is missing in SendMessage")
        let noIdentity =
            #"{"action":"chatWindowEvent","eventId":"1","payload":{"brand":{"id":1},"channel":{"id":"c"},"eventType":"FetchThreadList"}}"#
        let identity = #expect(throws: CXoneWireError.self) { try CXoneOutbound.decode(noIdentity.bytes) }
        #expect(identity?.message == "client frame \(noIdentity.utf8.count) B: payload.consumerIdentity is missing in FetchThreadList")

        let refused = WireSamples.bytes("sdk-version-not-supported.json")
        let service = #expect(throws: CXoneWireError.self) { try CXoneChannelConfiguration.decode(refused) }
        #expect(service == CXoneWireError(.serviceError, "channel configuration \(refused.count) B: the service answered SdkVersionNotSupported"))
        let badSize =
            #"{"isLiveChat":false,"isAuthorizationEnabled":false,"settings":{"hasMultipleThreadsPerEndUser":false,"fileRestrictions":{"allowedFileSize":"big","isAttachmentsEnabled":true}}}"#
        let size = #expect(throws: CXoneWireError.self) { try CXoneChannelConfiguration.decode(badSize.bytes) }
        #expect(size?.message == "channel configuration \(badSize.utf8.count) B: settings.fileRestrictions.allowedFileSize is not a whole number")
        let availability = #expect(throws: CXoneWireError.self) { try CXoneAvailability.decode("{}".bytes) }
        #expect(availability?.message == "availability 2 B: status is missing")
    }
}
