internal import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes WARC records to one file: `NAME.warc.gz` with each record a gzip member of its own
/// (WARC 1.1 annex D), or `NAME.warc` uncompressed.
///
/// The file is written as `NAME.warc.gz.open` and renamed to its name by ``close()``, so a name
/// without `.open` always holds a finished file; after a crash, every whole record of the `.open`
/// file is readable and only the last, partial one is lost. An existing file of either name is
/// never overwritten.
///
/// Threading: not thread-safe; one thread (part 2: the record writer's) writes and closes it.
/// Close it before dropping it: a writer dropped open leaves its `.open` file, as a crash would.
public final class WARCWriter {
    /// How records go into the file.
    public enum Compression: Sendable, Equatable {
        /// A gzip member per record, at an igzip level (ISA-L's 0-3: 0 the fastest, 3 the smallest
        /// output; 0 when `nil`).
        case gzip(level: Int32?)
        /// Records one after another, uncompressed.
        case none

        /// Gzip for a name ending `.gz`, none otherwise.
        public static func forPath(_ path: String) -> Compression {
            path.hasSuffix(".gz") ? .gzip(level: nil) : .none
        }
    }

    /// Where a record went: what a CDXJ line and a JSON record's `warc` field name.
    public struct Placement: Sendable, Hashable {
        /// The byte offset of the record (its gzip member, when compressed) in the file.
        public let offset: Int64
        /// Its length in the file: the gzip member's, when compressed.
        public let length: Int64
    }

    /// The name the file has once closed.
    public let path: String
    /// The name the file has while open: ``path`` and `.open`.
    public let openPath: String
    /// How records are written.
    public let compression: Compression
    /// Bytes written so far: the offset of the next record.
    public private(set) var size: Int64 = 0

    private var descriptor: Int32
    private let gzip: GzipMember?
    /// Bytes written since the file's write-back was last started.
    private var unsentBytes: Int64 = 0
    /// How much is written between starts of write-back (``close()``'s fsync then waits for
    /// little: under disk load, a 35 MB file's took 30-40 s when nothing had been sent before).
    static let writebackEvery: Int64 = 8 << 20

    /// Creates `path` + `.open` for writing.
    ///
    /// - Parameter compression: gzip or none; from the name (``Compression/forPath(_:)``) when `nil`.
    /// - Throws: ``WARCError/Kind/io`` when the file exists (under either name) or cannot be
    ///   created; ``WARCError/Kind/compression`` for a level igzip does not have.
    public init(path: String, compression: Compression? = nil) throws(WARCError) {
        self.path = path
        self.openPath = path + ".open"
        self.compression = compression ?? .forPath(path)
        if case .gzip(let level) = self.compression {
            self.gzip = try GzipMember(level: level)
        } else {
            self.gzip = nil
        }
        guard access(path, F_OK) != 0 else {
            throw WARCError.io("create", path, errno: EEXIST)
        }
        let descriptor = open(self.openPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WARCError.io("create", self.openPath, errno: errno)
        }
        self.descriptor = descriptor
    }

    deinit {
        if self.descriptor >= 0 {
            closeDescriptor(self.descriptor)
        }
    }

    /// Appends `record` and says where it went.
    ///
    /// A record is written whole or, on an error, the file is left where it was (truncated back),
    /// so a later record still starts at a record boundary.
    ///
    /// - Parameter compressible: `false` for a record whose block is compressed already (an image, a
    ///   gzip body): its gzip member then stores it (stored DEFLATE blocks), which every reader reads alike,
    ///   instead of spending a deflate pass on bytes that do not shrink.
    @discardableResult
    public func write(_ record: WARCRecord, compressible: Bool = true) throws(WARCError) -> Placement {
        try self.write([(record, compressible)])[0]
    }

    /// Appends `records` in order, in one system call, and says where each went: an exchange's
    /// response and request records go together. All are written or, on an error, none.
    @discardableResult
    public func write(_ records: [(record: WARCRecord, compressible: Bool)]) throws(WARCError) -> [Placement] {
        guard self.descriptor >= 0 else {
            throw WARCError.closed(self.path)
        }
        let start = self.size
        var pieces: [ArraySlice<UInt8>] = []
        var placements: [Placement] = []
        placements.reserveCapacity(records.count)
        var offset = start
        for (record, compressible) in records {
            let parts = [record.head[...], record.block[...], WARCRecord.trailer[...]]
            var length = 0
            if let gzip = self.gzip, compressible {
                let member = try gzip.compress(parts, kind: record.kind)
                length = member.count
                pieces.append(member[...])
            } else {
                let member = self.gzip == nil ? parts : GzipMember.storedPieces(parts)
                length = member.reduce(0) { $0 + $1.count }
                pieces += member
            }
            placements.append(Placement(offset: offset, length: Int64(length)))
            offset += Int64(length)
        }
        try self.writeAll(pieces, from: start)
        self.size = offset
        self.unsentBytes += offset - start
        if self.unsentBytes >= Self.writebackEvery {
            // Errors are ignored: the bytes are written either way, and close's fsync reports.
            _ = clinux_start_writeback(self.descriptor)
            self.unsentBytes = 0
        }
        return placements
    }

    /// Syncs the file to disk, closes it and renames it from ``openPath`` to ``path``. Closing a
    /// closed writer does nothing.
    ///
    /// - Throws: ``WARCError/Kind/io`` when a step fails; the file then keeps its `.open` name.
    public func close() throws(WARCError) {
        guard self.descriptor >= 0 else {
            return
        }
        let descriptor = self.descriptor
        self.descriptor = -1
        if fsync(descriptor) != 0 {
            let error = errno
            closeDescriptor(descriptor)
            throw WARCError.io("sync", self.openPath, errno: error)
        }
        if closeDescriptor(descriptor) != 0 {
            throw WARCError.io("close", self.openPath, errno: errno)
        }
        // link, then unlink: unlike rename, link fails rather than replace a file made meanwhile.
        guard link(self.openPath, self.path) == 0 else {
            throw WARCError.io("rename to \(self.path)", self.openPath, errno: errno)
        }
        unlink(self.openPath)
    }

    /// Writes `pieces` end to end with writev(2), continuing after short writes.
    private func writeAll(_ pieces: [ArraySlice<UInt8>], from start: Int64) throws(WARCError) {
        var index = 0
        var done = 0
        while index < pieces.count {
            // Up to 64 pieces a call, well under IOV_MAX; the first may be partly written.
            let batch = pieces[index..<min(pieces.count, index + 64)]
            let count = Self.withIOVecs(batch, skipping: done) {
                writeVector(self.descriptor, $0.baseAddress, Int32($0.count))
            }
            if count < 0 {
                let error = errno
                if error == EINTR {
                    continue
                }
                // Leave no partial record for the next one to follow.
                _ = ftruncate(self.descriptor, off_t(start))
                _ = lseek(self.descriptor, off_t(start), SEEK_SET)
                throw WARCError.io("write", self.openPath, errno: error)
            }
            var rest = done + count
            while index < pieces.count && rest >= pieces[index].count {
                rest -= pieces[index].count
                index += 1
            }
            done = rest
        }
    }

    /// Calls `body` with iovecs for `pieces`, the first without its first `skipping` bytes.
    private static func withIOVecs<Result>(
        _ pieces: ArraySlice<ArraySlice<UInt8>>, skipping: Int, _ body: (UnsafeBufferPointer<iovec>) -> Result
    ) -> Result {
        func gather(_ rest: ArraySlice<ArraySlice<UInt8>>, _ vectors: inout [iovec]) -> Result {
            guard let first = rest.first else {
                return vectors.withUnsafeBufferPointer(body)
            }
            return first.withUnsafeBytes { bytes in
                let skip = vectors.isEmpty ? skipping : 0
                let base = UnsafeMutableRawPointer(mutating: bytes.baseAddress?.advanced(by: skip))
                vectors.append(iovec(iov_base: base, iov_len: bytes.count - skip))
                return gather(rest.dropFirst(), &vectors)
            }
        }
        var vectors: [iovec] = []
        vectors.reserveCapacity(pieces.count)
        return gather(pieces, &vectors)
    }
}

@available(*, unavailable)
extension WARCWriter: Sendable {}

// close(2) and writev(2) under names of their own: inside the class, `close` and `write` are its
// methods.
@discardableResult
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

private func writeVector(_ descriptor: Int32, _ vectors: UnsafePointer<iovec>?, _ count: Int32) -> Int {
    writev(descriptor, vectors, count)
}
