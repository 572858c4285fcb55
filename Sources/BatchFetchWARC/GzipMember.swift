internal import CDeflate

/// Compresses one record at a time into a gzip member of its own (RFC 1952), as WARC 1.1 annex D
/// asks: a reader can then start at any record's offset, and a file cut short loses only its last
/// member.
///
/// A record is compressed whole, in one call (libdeflate): it is in memory anyway, and a
/// whole-buffer compressor needs no stream state to reset, which for records of a few kilobytes
/// was a good part of zlib's cost. Used by one thread at a time.
final class GzipMember {
    private let compressor: OpaquePointer
    /// The record's pieces, end to end, reused from record to record.
    private var input: [UInt8] = []

    /// A compressor at `level` (0-9, 0 storing without compression; 6 when `nil`, zlib's default).
    init(level: Int32?) throws(WARCError) {
        let level = level ?? 6
        guard (0...9).contains(level) else {
            throw WARCError.compression("level \(level) is not one of 0-9")
        }
        guard let compressor = libdeflate_alloc_compressor(level) else {
            throw WARCError.compression("libdeflate could not allocate a compressor (out of memory)")
        }
        self.compressor = compressor
    }

    deinit {
        libdeflate_free_compressor(self.compressor)
    }

    /// The gzip member holding `pieces`, one after another.
    func compress(_ pieces: [ArraySlice<UInt8>]) throws(WARCError) -> [UInt8] {
        self.input.removeAll(keepingCapacity: true)
        for piece in pieces {
            self.input += piece
        }
        let compressor = self.compressor
        let bound = libdeflate_gzip_compress_bound(compressor, self.input.count)
        var produced = 0
        let member = self.input.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: bound) { output, count in
                count = libdeflate_gzip_compress(compressor, input.baseAddress, input.count, output.baseAddress, bound)
                produced = count
            }
        }
        // The bound holds any input; 0 would mean it did not.
        guard produced > 0 else {
            throw WARCError.compression("libdeflate produced no output for \(self.input.count) bytes")
        }
        // A large record's input buffer is not kept for the next, small one.
        if self.input.capacity > 1 << 24 {
            self.input = []
        }
        return member
    }
}
