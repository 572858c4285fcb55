import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines lazily from a file descriptor in 64 KB chunks, so a million-line input starts at
/// once and never sits in memory whole. Accepts LF and CRLF; invalid UTF-8 is repaired (U+FFFD),
/// never fatal; a UTF-8 byte order mark before the first line (what some Windows editors write)
/// is skipped, not taken for part of it.
struct LineReader: Sequence, IteratorProtocol {
    private final class Source {
        let descriptor: Int32
        let owned: Bool
        var buffer: [UInt8] = []
        var start = 0
        /// Where the search for the next newline goes on: a long line is read in many chunks, and
        /// each is searched once, not the whole line again for every chunk.
        var scanned = 0
        /// What each `read` fills, appended to ``buffer`` in one copy.
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        var atEnd = false
        /// Whether the first bytes are still to be looked at for a byte order mark.
        var atStart = true
        /// The `errno` of a failed read, which ended the lines early.
        var error: Int32?

        init(descriptor: Int32, owned: Bool) {
            self.descriptor = descriptor
            self.owned = owned
        }

        deinit {
            if self.owned {
                close(self.descriptor)
            }
            self.chunk.deallocate()
        }

        /// The offset of the next newline in ``buffer`` after ``scanned``, or `nil` (and all of
        /// it scanned).
        func newline() -> Int? {
            let from = Swift.max(self.start, self.scanned)
            let found = self.buffer.withUnsafeBytes { bytes -> Int? in
                guard let base = bytes.baseAddress, from < bytes.count,
                    let hit = memchr(base + from, 0x0A, bytes.count - from)
                else {
                    return nil
                }
                return base.distance(to: UnsafeRawPointer(hit))
            }
            if found == nil {
                self.scanned = self.buffer.count
            }
            return found
        }

        /// Drops a UTF-8 byte order mark (EF BB BF) at the start of the input, once enough bytes
        /// came to tell. - Returns: whether that is decided (else more must be read first).
        func skipByteOrderMark() -> Bool {
            let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
            let head = self.buffer.prefix(3)
            guard head.elementsEqual(mark.prefix(head.count)) else {
                self.atStart = false
                return true
            }
            guard head.count == 3 || self.atEnd else {
                return false
            }
            if head.count == 3 {
                self.start = 3
                self.scanned = 3
            }
            self.atStart = false
            return true
        }
    }

    struct OpenError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot read \(self.path): \(self.reason)" }
    }

    private let source: Source

    /// Why reading stopped before the end, when a read failed (`errno`); `nil` otherwise.
    var readError: Int32? { self.source.error }

    init(fileDescriptor: Int32) {
        self.source = Source(descriptor: fileDescriptor, owned: false)
    }

    init(path: String) throws {
        if path == "-" {
            self.source = Source(descriptor: 0, owned: false)
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        if let reason = Self.unreadable(fd) {
            close(fd)
            throw OpenError(path: path, reason: reason)
        }
        self.source = Source(descriptor: fd, owned: true)
    }

    /// Why an open descriptor cannot be read as lines, found without consuming any of it: a
    /// folder, or a regular file whose first read fails (`/proc/self/mem`). Pipes and devices are
    /// not probed, as a read would take their bytes.
    static func unreadable(_ fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            return String(cString: strerror(errno))
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            return "it is a folder"
        case S_IFREG:
            var byte: UInt8 = 0
            return pread(fd, &byte, 1, 0) < 0 ? String(cString: strerror(errno)) : nil
        default:
            return nil
        }
    }

    mutating func next() -> String? {
        let s = self.source
        while true {
            // Until enough bytes came to tell whether they start a byte order mark, none is a line.
            if !s.atStart || s.skipByteOrderMark(), let newline = s.newline() {
                var end = newline
                if end > s.start && s.buffer[end - 1] == UInt8(ascii: "\r") {
                    end -= 1
                }
                let line = String(decoding: s.buffer[s.start..<end], as: UTF8.self)
                s.start = newline + 1
                s.scanned = s.start
                return line
            }
            if s.atEnd {
                guard s.start < s.buffer.count else {
                    return nil
                }
                let line = String(decoding: s.buffer[s.start...], as: UTF8.self)
                s.start = s.buffer.count
                s.scanned = s.start
                return line
            }
            if s.start > 0 {
                s.buffer.removeSubrange(0..<s.start)
                s.scanned -= s.start
                s.start = 0
            }
            let got = read(s.descriptor, s.chunk.baseAddress, s.chunk.count)
            if got <= 0 {
                if got < 0 && errno == EINTR {
                    continue
                }
                if got < 0 {
                    s.error = errno
                }
                s.atEnd = true
            } else {
                s.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: s.chunk[..<got]))
            }
        }
    }
}
