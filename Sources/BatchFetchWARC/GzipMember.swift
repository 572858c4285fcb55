internal import CISAL

/// Compresses one record at a time into a gzip member of its own (RFC 1952), as WARC 1.1 annex D
/// asks: a reader can then start at any record's offset, and a file cut short loses only its last
/// member.
///
/// A record is compressed whole, in one call (ISA-L's igzip, stateless): it is in memory anyway.
/// At level 0, igzip's fastest, no Huffman code is built per record (building one is most of
/// what a deflater spends on a record of a few kilobytes); its built-in code fits WARC heads
/// badly (a request record hardly shrank), so each kind of record gets a code fitted to its
/// kind in this run (``Fit``): the first records of a kind go at level 1 while their symbols are
/// counted, and the code is refitted from a sample as the run goes on. Output is within a few
/// percent of libdeflate's level 1 at a third of its time. Used by one thread at a time.
final class GzipMember {
    private let level: Int32
    private let stream: UnsafeMutablePointer<isal_zstream>
    /// Level 1's buffer: asked for by a level above 0, or used by level 0 while it learns.
    private let levelBuffer: UnsafeMutableRawBufferPointer
    /// At level 0, a fitted code per kind of record, made at its first record.
    private var fits: [WARCRecord.Kind: Fit] = [:]
    /// The record's pieces, end to end, reused from record to record.
    private var input: [UInt8] = []

    /// A compressor at igzip's `level` (0-3: 0 the fastest, 3 the smallest output; 0 when `nil`).
    init(level: Int32?) throws(WARCError) {
        let level = level ?? 0
        guard (0...3).contains(level) else {
            throw WARCError.compression("level \(level) is not one of igzip's 0-3")
        }
        self.level = level
        self.stream = .allocate(capacity: 1)
        let size = Int(cisal_level_buffer_size(max(level, 1)))
        self.levelBuffer = .allocate(byteCount: size, alignment: 16)
    }

    deinit {
        self.stream.deallocate()
        self.levelBuffer.deallocate()
    }

    /// The gzip member holding `pieces`, one after another, compressed: a record of `kind` (level 0
    /// fits a Huffman code to each kind).
    func compress(_ pieces: [ArraySlice<UInt8>], kind: WARCRecord.Kind) throws(WARCError) -> [UInt8] {
        self.input.removeAll(keepingCapacity: true)
        for piece in pieces {
            self.input += piece
        }
        defer {
            // A large record's input buffer is not kept for the next, small one.
            if self.input.capacity > 1 << 24 {
                self.input = []
            }
        }
        var level = self.level
        var fit: Fit?
        if level == 0 {
            let kindFit: Fit
            if let known = self.fits[kind] {
                kindFit = known
            } else {
                kindFit = Fit()
                self.fits[kind] = kindFit
            }
            self.input.withUnsafeMutableBufferPointer { kindFit.observe($0) }
            if kindFit.isReady {
                fit = kindFit
            } else {
                level = 1
            }
        }
        // Room for the stored form too: igzip falls back to it when compressing would not shrink.
        let bound = Self.storedSize(self.input.count) + 64
        var status: Int32 = COMP_OK
        let member = self.input.withUnsafeMutableBytes { input in
            [UInt8](unsafeUninitializedCapacity: bound) { output, count in
                let stream = self.stream
                isal_deflate_stateless_init(stream)
                stream.pointee.level = UInt32(level)
                if level > 0 {
                    stream.pointee.level_buf = self.levelBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    stream.pointee.level_buf_size = UInt32(self.levelBuffer.count)
                } else if let fit {
                    _ = isal_deflate_set_hufftables(stream, fit.tables, Int32(IGZIP_HUFFTABLE_CUSTOM))
                }
                stream.pointee.gzip_flag = UInt16(IGZIP_GZIP)
                stream.pointee.end_of_stream = 1
                stream.pointee.flush = UInt16(NO_FLUSH)
                stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = UInt32(bound)
                status = isal_deflate_stateless(stream)
                count = status == COMP_OK ? Int(stream.pointee.total_out) : 0
            }
        }
        guard status == COMP_OK, !member.isEmpty else {
            // The stored form holds anything; igzip failing is not worth losing the record over.
            return Self.stored([self.input[...]])
        }
        return member
    }

    /// Whether records of `kind` now go at level 0 with a code fitted to them.
    func isFitted(_ kind: WARCRecord.Kind) -> Bool {
        self.fits[kind]?.isReady ?? false
    }

    /// A Huffman code fitted to one kind of record, for level 0: the symbols of its first
    /// ``learning`` records are counted (they go at level 1 meanwhile), then one record in
    /// ``sampleEvery``, the code remade from each ``sampleCount`` samples, so it follows the run.
    private final class Fit {
        static let learning = 32
        static let sampleEvery = 16
        static let sampleCount = 64
        /// Records larger than this are not counted: the count's cost grows with the record.
        static let largestSample = 1 << 20

        let histogram: UnsafeMutablePointer<isal_huff_histogram> = .allocate(capacity: 1)
        let tables: UnsafeMutablePointer<isal_hufftables> = .allocate(capacity: 1)
        private(set) var isReady = false
        private var seen = 0
        private var samples = 0

        init() {
            self.histogram.initialize(to: isal_huff_histogram())
        }

        deinit {
            self.histogram.deallocate()
            self.tables.deallocate()
        }

        /// Counts `record`'s symbols when it is a sample, and remakes the code after enough.
        func observe(_ record: UnsafeMutableBufferPointer<UInt8>) {
            self.seen += 1
            let sampled = self.isReady ? self.seen % Self.sampleEvery == 0 : true
            guard sampled, record.count <= Self.largestSample, let base = record.baseAddress else {
                return
            }
            isal_update_histogram(base, Int32(record.count), self.histogram)
            self.samples += 1
            let enough = self.isReady ? Self.sampleCount : Self.learning
            guard self.samples >= enough else {
                return
            }
            // A code that cannot be made leaves the last one (or level 1 while there is none).
            if isal_create_hufftables(self.tables, self.histogram) == 0 {
                self.isReady = true
            }
            self.histogram.pointee = isal_huff_histogram()
            self.samples = 0
        }
    }

    /// The gzip member holding `pieces` in stored (uncompressed) DEFLATE blocks: for records whose
    /// bodies are compressed already, which a deflate pass would not shrink.
    static func stored(_ pieces: [ArraySlice<UInt8>]) -> [UInt8] {
        let parts = Self.storedPieces(pieces)
        var member: [UInt8] = []
        member.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts {
            member += part
        }
        return member
    }

    /// A stored member of `pieces` as the pieces to write in order: its header, block headers and
    /// trailer, and between them slices of `pieces` themselves, so a large body is not copied
    /// into a member only to be written out.
    static func storedPieces(_ pieces: [ArraySlice<UInt8>]) -> [ArraySlice<UInt8>] {
        let total = pieces.reduce(0) { $0 + $1.count }
        var parts: [ArraySlice<UInt8>] = []
        parts.reserveCapacity(2 * pieces.count + 2 * (total / 65_535) + 3)
        // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952 §2.3).
        var framing: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
        var crc: UInt32 = 0
        var blockLeft = 0
        var written = 0
        if total == 0 {
            framing += Self.storedBlockHeader(length: 0, final: true)
        }
        for piece in pieces {
            var rest = piece
            while !rest.isEmpty {
                if blockLeft == 0 {
                    blockLeft = min(total - written, 65_535)
                    framing += Self.storedBlockHeader(length: blockLeft, final: written + blockLeft == total)
                }
                let take = rest.prefix(blockLeft)
                crc = take.withUnsafeBytes { crc32_gzip_refl(crc, $0.baseAddress, UInt64($0.count)) }
                if !framing.isEmpty {
                    parts.append(framing[...])
                    framing = []
                }
                parts.append(take)
                rest = rest.dropFirst(take.count)
                blockLeft -= take.count
                written += take.count
            }
        }
        Self.appendLittleEndian(crc, to: &framing)
        Self.appendLittleEndian(UInt32(truncatingIfNeeded: total), to: &framing)
        parts.append(framing[...])
        return parts
    }

    /// A stored member's size for `count` bytes: the gzip header and trailer, and 5 bytes a
    /// block of at most 65,535.
    private static func storedSize(_ count: Int) -> Int {
        18 + count + 5 * (count / 65_535 + 1)
    }

    /// A stored block's header: BFINAL, BTYPE 00, then LEN and NLEN (RFC 1951 §3.2.4).
    private static func storedBlockHeader(length: Int, final: Bool) -> [UInt8] {
        let length = UInt16(length)
        return [final ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
    }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
