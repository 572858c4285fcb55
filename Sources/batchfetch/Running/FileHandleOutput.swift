import BatchFetch
import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes bytes to a file descriptor, retrying short writes. The first failure (a closed pipe,
/// a full disk) is remembered in ``failure`` so callers stop producing output nobody can read.
final class FileHandleOutput: Sendable {
    private let descriptor: Int32
    private let owned: Bool
    /// Whether the descriptor is a regular file this output opened: only then is there
    /// write-back to start (``startWriteback()``) or to wait for (``flush()``).
    private let ownedRegularFile: Bool
    private let failedErrno = Atomic<Int32>(0)
    /// The file offset after the last byte written (regular files this output opened).
    private let position = Atomic<Int>(0)
    /// The file offset after the last line end written: where a failed write cuts the file back
    /// to, so it never ends in part of a record (regular files this output opened).
    private let lineEnd = Atomic<Int>(0)
    private let failedWriteLines = Atomic<Int>(0)

    /// The `errno` of the first failed write, or `nil`. After it, writes are ignored; a regular
    /// file this output opened was cut back to its last complete line.
    var failure: Int32? {
        let value = self.failedErrno.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// How many lines the failed write (``failure``) completed before it failed: with those
    /// before it, the lines the output holds whole.
    var linesInFailedWrite: Int { self.failedWriteLines.load(ordering: .relaxed) }

    static let standardOutput = FileHandleOutput(descriptor: 1)
    static let standardError = FileHandleOutput(descriptor: 2)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        self.owned = false
        self.ownedRegularFile = false
    }

    /// Writes to `descriptor`, which it closes when it goes away.
    init(owning descriptor: Int32) {
        self.descriptor = descriptor
        self.owned = true
        var status = stat()
        self.ownedRegularFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        if self.ownedRegularFile {
            // A resumed crawl appends after what it kept, which ends in a line end.
            let start = max(0, Int(lseek(descriptor, 0, SEEK_CUR)))
            self.position.store(start, ordering: .relaxed)
            self.lineEnd.store(start, ordering: .relaxed)
        }
    }

    /// Opens (creates or truncates) a file for writing.
    convenience init?(path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return nil
        }
        self.init(owning: fd)
    }

    /// Opens a file for appending after cutting it to its first `keeping` bytes (creating it when
    /// missing), as a resumed crawl does.
    convenience init?(appendingTo path: String, keeping bytes: Int) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return nil
        }
        guard ftruncate(fd, off_t(bytes)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
            close(fd)
            return nil
        }
        self.init(owning: fd)
    }

    deinit {
        if self.owned {
            close(self.descriptor)
        }
    }

    func write(_ text: String) {
        self.write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.write([$0]) }
    }

    /// Writes `pieces` one after another with `writev`, resuming after short writes. Does nothing
    /// once a write failed: what follows a lost piece would be garbage.
    func write(_ pieces: [UnsafeRawBufferPointer]) {
        guard self.failure == nil else {
            return
        }
        var vectors = pieces.compactMap { piece in
            piece.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: piece.count) }
        }
        var first = 0
        var done = 0
        while first < vectors.count {
            // At most IOV_MAX (1024 on Linux) vectors per call.
            let written = vectors[first...].withUnsafeBufferPointer { rest in
                Glibc.writev(self.descriptor, rest.baseAddress, Int32(min(rest.count, 1024)))
            }
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                self.failed(errno, pieces: pieces, written: done)
                return
            }
            done += written
            // Skip what was written: whole vectors, then part of the next one.
            var left = written
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base += left
                vectors[first].iov_len -= left
            }
        }
        if self.ownedRegularFile {
            self.wrote(pieces, count: done)
        }
    }

    /// Moves the position past `count` bytes of `pieces`, and the last line end with it.
    private func wrote(_ pieces: [UnsafeRawBufferPointer], count: Int) {
        let start = self.position.load(ordering: .relaxed)
        self.position.store(start + count, ordering: .relaxed)
        // Records end in a line end: the last byte says so without a search.
        if let last = pieces.last(where: { !$0.isEmpty }), last[last.count - 1] == 0x0A {
            self.lineEnd.store(start + count, ordering: .relaxed)
        } else if let found = Self.lines(in: pieces, count: count, counting: false).last {
            self.lineEnd.store(start + found + 1, ordering: .relaxed)
        }
    }

    /// A write failed with `code` after `written` bytes of `pieces`: counts the lines they
    /// completed, and cuts a regular file this output opened back to its last line end, so it
    /// holds whole records only.
    private func failed(_ code: Int32, pieces: [UnsafeRawBufferPointer], written: Int) {
        let (count, last) = Self.lines(in: pieces, count: written, counting: true)
        self.failedWriteLines.store(count, ordering: .relaxed)
        if self.ownedRegularFile {
            let start = self.position.load(ordering: .relaxed)
            if let last {
                self.lineEnd.store(start + last + 1, ordering: .relaxed)
            }
            self.position.store(start + written, ordering: .relaxed)
            // Nothing more can be done if this fails too; the error is reported either way.
            _ = ftruncate(self.descriptor, off_t(self.lineEnd.load(ordering: .relaxed)))
        }
        _ = self.failedErrno.compareExchange(expected: 0, desired: code, ordering: .relaxed)
    }

    /// In the first `count` bytes of `pieces`: how many line ends (when `counting`; else only the
    /// last is looked for, from the end), and the offset of the last one.
    private static func lines(
        in pieces: [UnsafeRawBufferPointer], count: Int, counting: Bool
    ) -> (count: Int, last: Int?) {
        var ends = 0
        var last: Int?
        var offset = 0
        var spans: [(offset: Int, bytes: UnsafeRawBufferPointer)] = []
        for piece in pieces where offset < count {
            spans.append((offset, UnsafeRawBufferPointer(rebasing: piece.prefix(count - offset))))
            offset += piece.count
        }
        if !counting {
            for span in spans.reversed() {
                if let base = span.bytes.baseAddress, let hit = memrchr(base, 0x0A, span.bytes.count) {
                    return (0, span.offset + (base.distance(to: UnsafeRawPointer(hit))))
                }
            }
            return (0, nil)
        }
        for span in spans {
            guard let base = span.bytes.baseAddress else {
                continue
            }
            var from = 0
            while from < span.bytes.count, let hit = memchr(base + from, 0x0A, span.bytes.count - from) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                ends += 1
                last = span.offset + at
                from = at + 1
            }
        }
        return (ends, last)
    }

    /// Starts writing what was written so far to disk, without waiting, so that ``flush()`` at
    /// the end does not wait for the whole file: a warm crawl's 109 MB output took a 33-38 ms
    /// `fsync`, and with write-back started after each buffer it takes under 1 ms. Only for a
    /// regular file this output opened; errors are ignored (``flush()`` reports nothing either,
    /// and the data is written whether or not write-back starts early).
    func startWriteback() {
        if self.ownedRegularFile {
            _ = clinux_start_writeback(self.descriptor)
        }
    }

    func flush() {
        if self.owned {
            fsync(self.descriptor)
        }
    }
}

/// Writes buffers to a ``FileHandleOutput`` on a thread of its own, so the producer goes on
/// encoding while the kernel copies the previous buffer: for a crawl writing 100 MB of records,
/// that copy was a sixth of the consuming task's time. After each buffer it starts the file's
/// write-back (``FileHandleOutput/startWriteback()``), so the disk works while the crawl does. At
/// most ``depth`` buffers wait; a producer that gets ahead of the disk waits too, so memory stays
/// bounded. Buffers come back emptied with their capacity, so a steady writer allocates none.
///
/// Threading: ``write(_:)`` and ``close()`` from one producer at a time.
/// `@unchecked Sendable`: every mutable property is guarded by `condition`.
final class QueuedOutput: @unchecked Sendable {
    static let depth = 2

    private let file: FileHandleOutput
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var spare: [[UInt8]] = []
    private var closing = false
    private var exited = false

    init(file: FileHandleOutput) {
        self.file = file
        let thread = Thread { [self] in
            nameCurrentThread("batchfetch-out")
            self.run()
        }
        thread.name = "batchfetch-out"
        thread.start()
    }

    /// Queues `bytes` (waiting while ``depth`` buffers are queued) and leaves an empty buffer in
    /// its place. Empty buffers are not queued.
    func write(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else {
            return
        }
        self.condition.lock()
        defer { self.condition.unlock() }
        while self.queue.count >= Self.depth && !self.exited {
            self.condition.wait()
        }
        guard !self.exited else {
            // Closed: write in place, in order after everything queued before.
            self.file.write(bytes)
            bytes.removeAll(keepingCapacity: true)
            return
        }
        self.queue.append(bytes)
        bytes = self.spare.popLast() ?? []
        self.condition.broadcast()
    }

    /// Returns once everything queued is written, and stops the thread. Idempotent.
    func close() {
        self.condition.lock()
        defer { self.condition.unlock() }
        self.closing = true
        self.condition.broadcast()
        while !self.exited {
            self.condition.wait()
        }
    }

    private func run() {
        self.condition.lock()
        while true {
            while self.queue.isEmpty && !self.closing {
                self.condition.wait()
            }
            guard !self.queue.isEmpty else {
                break
            }
            var bytes = self.queue.removeFirst()
            self.condition.unlock()
            self.file.write(bytes)
            self.file.startWriteback()
            bytes.removeAll(keepingCapacity: true)
            self.condition.lock()
            if self.spare.count < Self.depth {
                self.spare.append(bytes)
            }
            self.condition.broadcast()
        }
        self.exited = true
        self.condition.broadcast()
        self.condition.unlock()
    }
}
