import BatchFetch

#if canImport(Glibc)
    import Glibc
#endif

/// Reads batchfetch NDJSON records from a file descriptor one at a time, each record's index
/// taken from its `{"index":N,` prefix without parsing the JSON.
///
/// A regular file is mapped into memory rather than read: records are then copied once, from
/// the page cache to the output, not twice (into a read buffer first), which cut a merge's time
/// by about a fifth. The pages already copied are given back every MiB (`MADV_DONTNEED`), so
/// resident memory stays flat however large the file. Other files (pipes, process substitution)
/// are read into a buffer of fixed size through which ``copyRecord(into:)`` streams each record,
/// so a 64 MB record costs no more memory here than a 64-byte one. A mapped file must not shrink
/// while it is merged (as with any mapping, reading past its new end would raise SIGBUS).
///
/// A last line without its newline is a record cut off by a killed writer: it is not returned,
/// and ``cutOff`` says so (with its index when the prefix was whole).
///
/// Noncopyable, as it owns its buffer or mapping and its descriptor; a struct, so that the merge
/// loop calls it in place with no reference counting (retains and releases of a class were a
/// sixth of the merge's time).
///
/// Threading: one thread at a time.
struct RecordSource: ~Copyable {
    /// For messages: the file, and which part of it for a sorted run.
    let name: String
    /// The input file this source reads (a sorted run reads a temporary copy of part of one).
    let origin: Int
    /// The current record's index, valid after ``advance()`` returned `true`.
    private(set) var index = 0
    /// Records read so far, the current one included.
    private(set) var records = 0
    /// Whether the file ended in a cut-off record, and its index when that could be read.
    private(set) var cutOff: (index: Int?, present: Bool) = (nil, false)

    private let descriptor: Int32
    private let owned: Bool
    /// A buffer of ``capacity`` bytes, or the whole file mapped when ``mapped``.
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let mapped: Bool
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Bytes at the start of a mapping already given back to the kernel.
    private var released = 0

    /// Enough for `{"index":` and 19 digits and the byte after them.
    static let prefixBytes = 32

    /// Reads `descriptor` (closed on deinit when `owned`) with a buffer of `bufferSize` bytes.
    init(descriptor: Int32, owned: Bool, name: String, origin: Int, bufferSize: Int) {
        self.descriptor = descriptor
        self.owned = owned
        self.name = name
        self.origin = origin
        self.capacity = max(bufferSize, 4 * Self.prefixBytes)
        self.buffer = .allocate(capacity: self.capacity)
        self.mapped = false
    }

    /// Reads the `size` bytes mapped at `base` (unmapped and closed on deinit).
    private init(descriptor: Int32, mapping base: UnsafeMutablePointer<UInt8>, size: Int, name: String, origin: Int) {
        self.descriptor = descriptor
        self.owned = true
        self.name = name
        self.origin = origin
        self.buffer = base
        self.capacity = size
        self.mapped = true
        self.end = size
        self.atEnd = true
    }

    /// Opens `path`: mapped when it is a regular file, else read through a buffer of
    /// `bufferSize` bytes. - Throws: ``MergeError/Kind/unreadable``.
    init(path: String, origin: Int, bufferSize: Int) throws(MergeError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MergeError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
            let base = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED
        {
            _ = madvise(base, Int(status.st_size), MADV_SEQUENTIAL)
            self.init(
                descriptor: descriptor, mapping: base.assumingMemoryBound(to: UInt8.self), size: Int(status.st_size),
                name: path, origin: origin)
            return
        }
        self.init(descriptor: descriptor, owned: true, name: path, origin: origin, bufferSize: bufferSize)
    }

    deinit {
        if self.mapped {
            munmap(self.buffer, self.capacity)
        } else {
            self.buffer.deallocate()
        }
        if self.owned {
            close(self.descriptor)
        }
    }

    /// Every MiB, gives the mapped pages already copied back to the kernel: they stay in the page
    /// cache, and out of this process's resident memory.
    @inline(__always)
    private mutating func releaseCopiedPages() {
        guard self.mapped, self.start - self.released >= Self.releaseStep else {
            return
        }
        let length = (self.start - self.released) & ~(Self.releaseStep - 1)
        _ = madvise(self.buffer + self.released, length, MADV_DONTNEED)
        self.released += length
    }

    /// A multiple of every page size Linux uses.
    private static let releaseStep = 1 << 20

    /// Moves to the next record and reads its index.
    /// - Returns: `false` at the end (a cut-off last record is left out, see ``cutOff``).
    /// - Throws: ``MergeError/Kind/notARecord`` for a line that is not a record,
    ///   ``MergeError/Kind/unreadable`` when reading fails.
    mutating func advance() throws(MergeError) -> Bool {
        if self.end - self.start < Self.prefixBytes && !self.atEnd {
            try self.fill(atLeast: Self.prefixBytes)
        }
        guard self.start < self.end else {
            return false
        }
        let available = self.end - self.start
        if let index = Self.parseIndex(self.buffer + self.start, count: available) {
            self.index = index
            self.records += 1
            return true
        }
        // Not a record's start: a cut-off last line if no newline follows, else not a record.
        if self.atEnd && memchr(self.buffer + self.start, 0x0A, available) == nil {
            self.cutOff = (nil, true)
            self.start = self.end
            return false
        }
        let shown = String(
            decoding: UnsafeBufferPointer(start: self.buffer + self.start, count: min(available, 40)), as: UTF8.self)
        throw MergeError(
            .notARecord,
            "\(self.name): record \(self.records + 1) is not a batchfetch record (it starts "
                + "\(String(reflecting: shown.prefix { $0 != "\n" }))); merge takes the NDJSON of fetch")
    }

    /// Copies the current record, its newline included, to the end of `output`.
    /// - Returns: `false` when the file ends before the record's newline: what was copied is a
    ///   cut-off record, which the caller takes back (``cutOff`` is then set).
    mutating func copyRecord(into output: inout MergeOutputBuffer) throws(MergeError) -> Bool {
        guard try self.passRecord({ output.append($0, count: $1) }) else {
            return false
        }
        self.releaseCopiedPages()
        return true
    }

    /// Skips the current record.
    /// - Returns: `false` when it is cut off (see ``copyRecord(into:)``).
    mutating func skipRecord() throws(MergeError) -> Bool {
        try self.passRecord { _, _ in }
    }

    /// Moves past the current record, its newline included, handing each piece of it to `piece`
    /// on the way. - Returns: `false` when it is cut off (see ``copyRecord(into:)``).
    private mutating func passRecord(_ piece: (UnsafePointer<UInt8>, Int) -> Void) throws(MergeError) -> Bool {
        while true {
            let available = self.end - self.start
            if let newline = memchr(self.buffer + self.start, 0x0A, available) {
                let length =
                    UnsafeMutableRawPointer(mutating: newline) - UnsafeMutableRawPointer(self.buffer + self.start) + 1
                piece(self.buffer + self.start, length)
                self.start += length
                return true
            }
            piece(self.buffer + self.start, available)
            self.start = self.end
            if self.atEnd {
                self.cutOff = (self.index, true)
                self.records -= 1
                return false
            }
            try self.fill(atLeast: 1)
        }
    }

    /// Keeps the unread bytes, moved to the front, and reads until `count` are there or the file
    /// ends.
    private mutating func fill(atLeast count: Int) throws(MergeError) {
        let kept = self.end - self.start
        if kept > 0 && self.start > 0 {
            memmove(self.buffer, self.buffer + self.start, kept)
        }
        self.start = 0
        self.end = kept
        while self.end - self.start < count && !self.atEnd {
            let got = read(self.descriptor, self.buffer + self.end, self.capacity - self.end)
            if got > 0 {
                self.end += got
            } else if got == 0 {
                self.atEnd = true
            } else if errno != EINTR {
                throw MergeError(.unreadable, "cannot read \(self.name): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The index of a record starting at `bytes`: `{"index":` then 1 to 18 digits then `,` or `}`.
    @inline(__always)
    static func parseIndex(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int? {
        // `{"index":` is 9 bytes: `{"index"` compared as one little-endian word, then the colon.
        let head: UInt64 = 0x2278_6564_6e69_227b
        guard count >= 11, UInt64(littleEndian: UnsafeRawPointer(bytes).loadUnaligned(as: UInt64.self)) == head,
            bytes[8] == UInt8(ascii: ":")
        else {
            return nil
        }
        var value = 0
        var position = 9
        let limit = min(count, 9 + 18)
        while position < limit {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else {
                break
            }
            value = value &* 10 &+ Int(digit)
            position += 1
        }
        guard position > 9, position < count,
            bytes[position] == UInt8(ascii: ",") || bytes[position] == UInt8(ascii: "}")
        else {
            return nil
        }
        return value
    }
}
