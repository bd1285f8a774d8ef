/// What the fuzz target (Fuzz/CXoneEvents) and the mutation test do with one input: decode it as a
/// gateway frame, as a client frame and as each REST body; check that what decodes encodes into bytes that
/// decode to the same value, and that every error is a short, non-empty ``CXoneWireError``. A broken
/// invariant is returned as text (the fuzz target traps on it, the test records it).
package enum CXoneWireExercise {
    package struct Result: Sendable {
        package var inbound: CXoneInbound?
        package var outbound: CXoneOutbound?
        package var bodies = 0
        package var errors: [CXoneWireError] = []
        package var violation: String?
    }

    package static func run(_ bytes: [UInt8], limits: CXoneWireLimits = CXoneWireLimits()) -> Result {
        var result = Result()
        do {
            let inbound = try CXoneInbound.decode(bytes, limits: limits)
            result.inbound = inbound
            result.violation =
                result.violation
                ?? self.roundTrip(
                    inbound,
                    limits: limits,
                    encode: { v throws(CXoneWireError) in try v.encoded() },
                    decode: { b, l throws(CXoneWireError) in try CXoneInbound.decode(b, limits: l) }
                )
            if case .eventInS3(let s3)? = inbound.receivedEvent {
                do { _ = try s3.decodeOrigin(bytes, limits: limits) } catch { result.errors.append(error) }
            }
        } catch {
            result.errors.append(error)
        }
        do {
            let outbound = try CXoneOutbound.decode(bytes, limits: limits)
            result.outbound = outbound
            result.violation =
                result.violation
                ?? self.roundTrip(
                    outbound,
                    limits: limits,
                    encode: { v throws(CXoneWireError) in try v.encoded() },
                    decode: { b, l throws(CXoneWireError) in try CXoneOutbound.decode(b, limits: l) }
                )
        } catch {
            result.errors.append(error)
        }
        // The timestamp reader on the raw text: what it reads must format and read back the same.
        if bytes.count <= 64, let date = CXoneTimestamp.parse(String(decoding: bytes, as: UTF8.self)) {
            let text = CXoneTimestamp.format(date)
            if CXoneTimestamp.parse(text).map(CXoneTimestamp.format) != text {
                result.violation = result.violation ?? "timestamp \(text) does not read back"
            }
        }
        self.body(CXoneChannelConfiguration.self, bytes, limits, &result)
        self.body(CXoneAvailability.self, bytes, limits, &result)
        self.body(CXoneVisitor.self, bytes, limits, &result)
        self.body(CXoneWire.AnalyticsEvent.self, bytes, limits, &result)
        for error in result.errors where result.violation == nil {
            if error.message.isEmpty || error.message.utf8.count > 400 {
                result.violation = "error message empty or too long: \(error.message.utf8.count) bytes"
            }
        }
        return result
    }

    private static func body<T: CXoneRESTBody>(_ type: T.Type, _ bytes: [UInt8], _ limits: CXoneWireLimits, _ result: inout Result) {
        do {
            let value = try T.decode(bytes, limits: limits)
            result.bodies += 1
            result.violation =
                result.violation
                ?? self.roundTrip(
                    value,
                    limits: limits,
                    encode: { v throws(CXoneWireError) in try v.encoded() },
                    decode: { b, l throws(CXoneWireError) in try T.decode(b, limits: l) }
                )
        } catch {
            result.errors.append(error)
        }
    }

    /// x → bytes → y → bytes → z must give z == y and the same bytes twice (the first step may normalise,
    /// e.g. a timestamp's precision).
    private static func roundTrip<T: Equatable>(
        _ value: T,
        limits: CXoneWireLimits,
        encode: (T) throws(CXoneWireError) -> [UInt8],
        decode: ([UInt8], CXoneWireLimits) throws(CXoneWireError) -> T
    ) -> String? {
        // Encoding may add nesting (empty optional members) and escapes; the limits are for input.
        let relaxed = CXoneWireLimits(maxFrameSize: Int.max, maxDepth: limits.maxDepth + 8)
        do {
            let first = try encode(value)
            let second = try decode(first, relaxed)
            let again = try encode(second)
            let third = try decode(again, relaxed)
            if second != third { return "\(T.self) differs after a second round trip" }
            if again != (try encode(third)) { return "\(T.self) encodes differently after a round trip" }
            return nil
        } catch {
            return "\(T.self) decoded but its encoding does not decode: \(error)"
        }
    }
}
