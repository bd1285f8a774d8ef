import CZlib

/// gzip with zlib's streaming calls, one shot each way: for tests that read or write gzip bodies with a
/// zlib of their own, not the simulator's wrapper nor the KarteActions plugin's, so that each checks the other.
package enum TestGzip {
    package struct Failure: Error { package var status: Int32 }

    package static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        precondition(attendant_deflate_init_gzip(&stream, 6) == Z_OK)
        defer { deflateEnd(&stream) }
        var input = input
        var output = [UInt8](repeating: 0, count: input.count + 1024)
        let written = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<written])
    }

    package static func decompress(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        precondition(attendant_inflate_init_gzip(&stream) == Z_OK)
        defer { inflateEnd(&stream) }
        var input = input
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            var status = Z_OK
            while status == Z_OK {
                let produced = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                output += chunk[..<produced]
            }
            return status
        }
        guard status == Z_STREAM_END else { throw Failure(status: status) }
        return output
    }
}
