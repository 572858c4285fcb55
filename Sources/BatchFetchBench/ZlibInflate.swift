import BatchFetch

internal import CZlib

/// Inflates a zlib stream (RFC 1950) with zlib itself: stored blocks, as batchfetch writes them,
/// and compressed ones, as HdrHistogram's libraries (Java, Python, C) write them.
enum ZlibInflate {
    /// Why a stream could not be inflated.
    enum Failure: Error, Equatable {
        /// Not a zlib stream, or damaged (a bad block, a wrong checksum): zlib's message.
        case damaged(String)
        /// The stream ends before its last block and checksum.
        case truncated
        /// It inflates to more than the limit given.
        case tooLarge
        /// zlib could not start (out of memory).
        case unavailable
    }

    /// The bytes the zlib stream `stream` holds, at most `limit` of them. Bytes after the stream's
    /// end are ignored, as HdrHistogram's decoders ignore them.
    static func inflate(_ stream: ArraySlice<UInt8>, limit: Int) -> Result<[UInt8], Failure> {
        var z = z_stream()
        guard czlib_inflate_init(&z) == Z_OK else {
            return .failure(.unavailable)
        }
        defer { inflateEnd(&z) }
        var input = Array(stream)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        return input.withUnsafeMutableBufferPointer { source -> Result<[UInt8], Failure> in
            z.next_in = source.baseAddress
            z.avail_in = UInt32(clamping: source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    z.next_out = buffer.baseAddress
                    z.avail_out = UInt32(buffer.count)
                    let status = CZlib.inflate(&z, Z_NO_FLUSH)
                    return (status, buffer.count - Int(z.avail_out))
                }
                out += chunk[..<produced]
                if out.count > limit {
                    return .failure(.tooLarge)
                }
                switch status {
                case Z_STREAM_END:
                    return .success(out)
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: every input byte was used and the stream is not over.
                    return .failure(.truncated)
                default:
                    let message = z.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return .failure(.damaged(message))
                }
            }
        }
    }
}
