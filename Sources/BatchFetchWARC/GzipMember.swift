internal import CZlib

/// Compresses one record at a time into a gzip member of its own (RFC 1952), as WARC 1.1 annex D
/// asks: a reader can then start at any record's offset, and a file cut short loses only its last
/// member.
///
/// Owns one zlib stream, reset between members rather than made anew. The stream lives at a fixed
/// address because zlib's state keeps a pointer back to it. Used by one thread at a time.
final class GzipMember {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8]

    /// A compressor at `level` (0-9; zlib's default, 6, when `nil`).
    init(level: Int32?) throws(WARCError) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = czlib_deflate_init_gzip(stream, level ?? Z_DEFAULT_COMPRESSION)
        guard status == Z_OK else {
            stream.deallocate()
            throw WARCError.compression(status)
        }
        self.stream = stream
        self.output = [UInt8](repeating: 0, count: 1 << 16)
    }

    deinit {
        deflateEnd(self.stream)
        self.stream.deallocate()
    }

    /// The gzip member holding `pieces`, one after another.
    func compress(_ pieces: [ArraySlice<UInt8>]) throws(WARCError) -> [UInt8] {
        var member: [UInt8] = []
        let reset = deflateReset(self.stream)
        guard reset == Z_OK else {
            throw WARCError.compression(reset)
        }
        // zlib counts input in 32 bits: larger pieces go in a gibibyte at a time.
        var chunks: [ArraySlice<UInt8>] = []
        for piece in pieces {
            var rest = piece
            while rest.count > Self.chunk {
                chunks.append(rest.prefix(Self.chunk))
                rest = rest.dropFirst(Self.chunk)
            }
            chunks.append(rest)
        }
        for (index, chunk) in chunks.enumerated() {
            try self.deflate(chunk, flush: index == chunks.count - 1 ? Z_FINISH : Z_NO_FLUSH, into: &member)
        }
        if chunks.isEmpty {
            try self.deflate([], flush: Z_FINISH, into: &member)
        }
        return member
    }

    private static let chunk = 1 << 30

    private func deflate(_ piece: ArraySlice<UInt8>, flush: Int32, into member: inout [UInt8]) throws(WARCError) {
        let stream = self.stream
        let failure: Int32? = piece.withUnsafeBufferPointer { input -> Int32? in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let (status, produced) = self.output.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    let status = CZlib.deflate(stream, flush)
                    return (status, buffer.count - Int(stream.pointee.avail_out))
                }
                member += self.output[..<produced]
                switch status {
                case Z_STREAM_END:
                    return nil
                case Z_OK, Z_BUF_ERROR:
                    // Z_BUF_ERROR: no progress this call; with output space given, only when the
                    // input is used up and more is expected, which ends a Z_NO_FLUSH piece.
                    if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 && flush != Z_FINISH {
                        return nil
                    }
                    if status == Z_BUF_ERROR && produced == 0 {
                        return status
                    }
                default:
                    return status
                }
            }
        }
        stream.pointee.next_in = nil
        if let failure {
            throw WARCError.compression(failure)
        }
    }
}
