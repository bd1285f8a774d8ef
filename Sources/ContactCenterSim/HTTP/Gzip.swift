import CZlib

/// gzip (RFC 1952) bodies on zlib, for the KARTE track endpoint. The simulator has its own wrapper rather
/// than the plugin's, so that a misreading of the format on one side is caught by the other.
enum Gzip {
    /// The body is not a whole gzip stream: bad magic, a corrupt deflate stream, a wrong CRC or length, or
    /// it stops early.
    struct Failure: Error, Sendable {
        var message: String
    }

    /// The largest body ``decompress(_:)`` inflates to: a guard against a gzip bomb sent at the simulator.
    static let maximumInflatedSize = 64 << 20

    static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard attendant_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else {
            fatalError("zlib could not start a deflate stream (out of memory)")
        }
        defer { deflateEnd(&stream) }
        // deflateBound covers the gzip header and trailer, so one call with Z_FINISH does it all.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        var input = input
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        precondition(status == Z_STREAM_END, "deflate into a deflateBound-sized buffer did not finish (\(status))")
        output.removeLast(Int(stream.avail_out))
        return output
    }

    static func decompress(_ input: [UInt8]) throws(Failure) -> [UInt8] {
        guard !input.isEmpty else { throw Failure(message: "the body is empty") }
        var stream = z_stream()
        guard attendant_inflate_init_gzip(&stream) == Z_OK else { throw Failure(message: "zlib could not start an inflate stream") }
        defer { inflateEnd(&stream) }
        var input = input
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                output += chunk[..<produced]
                // Z_BUF_ERROR with input left over cannot happen (the output chunk is emptied each round), so
                // it means the stream stopped before its end.
                guard status == Z_OK, output.count <= Self.maximumInflatedSize else { return status }
            }
        }
        switch status {
        case Z_STREAM_END:
            guard stream.avail_in == 0 else { throw Failure(message: "\(stream.avail_in) bytes follow the gzip stream") }
            return output
        case Z_OK: throw Failure(message: "the body inflates to more than \(Self.maximumInflatedSize) bytes")
        case Z_BUF_ERROR: throw Failure(message: "the gzip stream is truncated")
        default: throw Failure(message: "not gzip: \(stream.msg.map { String(cString: $0) } ?? "zlib status \(status)")")
        }
    }
}
