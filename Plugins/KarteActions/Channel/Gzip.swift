import CZlib

/// gzip for the track API's bodies, on zlib: requests go out compressed (`Content-Encoding: gzip`, as
/// both SDKs send them) and a compressed answer is read back.
enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The gzip form of `bytes`.
    static func compress(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard attendant_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else {
            throw Failure(description: "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(description: "zlib could not compress the body (status \(status))") }
        output.removeLast(output.count - Int(stream.total_out))
        return output
    }

    /// The bytes a gzip body holds, at most `limit` of them.
    static func decompress(_ bytes: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        guard bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B else {
            throw Failure(description: "the body is not gzip (it does not start with gzip's magic bytes)")
        }
        var stream = z_stream()
        guard attendant_inflate_init_gzip(&stream) == Z_OK else { throw Failure(description: "zlib could not start decompressing") }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status = Z_OK
        try input.withUnsafeMutableBufferPointer { (inBuffer) throws(Failure) in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while status != Z_STREAM_END {
                let produced = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw Failure(
                        description: status == Z_BUF_ERROR ? "the gzip body ends too early" : "the gzip body is damaged (zlib status \(status))"
                    )
                }
                output += chunk[..<produced]
                guard output.count <= limit else { throw Failure(description: "the body is larger than \(limit) bytes once decompressed") }
                if status == Z_OK, produced == 0, stream.avail_in == 0 { throw Failure(description: "the gzip body ends too early") }
            }
        }
        return output
    }
}
