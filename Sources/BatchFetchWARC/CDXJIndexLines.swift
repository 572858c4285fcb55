#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One WARC file's CDXJ lines until the file closes, then its index, sorted in byte order (as
/// pywb's binary search and `LC_ALL=C sort` have it).
///
/// Memory stays flat with the file's length: past ``runBytes`` the lines are sorted into a run
/// of their own, in a temporary file beside the index (unlinked once open, so a crash leaves
/// none), and the runs are merged into the index when it is written. A 1 GB WARC of small
/// records holds ~500,000 lines, ~150 MB, which were all in memory before. Used by one thread.
final class CDXJIndexLines {
    /// How many bytes of lines are kept in memory before they go to a run.
    let runBytes: Int
    /// The folder runs are made in: the index's own, so they land on its disk.
    private let folder: String
    private var bytes: [UInt8] = []
    private var lines: [Range<Int>] = []
    /// The runs spilled so far, each an unlinked file's descriptor.
    private var runs: [Int32] = []

    /// Lines for an index in `folder`, kept in memory up to `runBytes` (4 MiB when not given).
    init(folder: String, runBytes: Int = 4 << 20) {
        self.folder = folder
        self.runBytes = runBytes
    }

    deinit {
        self.discardRuns()
    }

    /// Adds `line` (without its line break).
    func append(_ line: String) throws(WARCError) {
        try self.append(bytes: Array(line.utf8))
    }

    /// Adds the line whose bytes are `line` (without its line break).
    func append(bytes line: [UInt8]) throws(WARCError) {
        let start = self.bytes.count
        self.bytes += line
        self.lines.append(start..<self.bytes.count)
        if self.bytes.count >= self.runBytes {
            try self.spill()
        }
    }

    /// Writes every line so far to `path`, sorted, and starts over.
    func write(to path: String) throws(WARCError) {
        defer { self.discardRuns() }
        if self.runs.isEmpty {
            let text = self.sortedText()
            self.bytes = []
            self.lines = []
            try Self.writeFile(path) { (emit: ([UInt8]) throws(WARCError) -> Void) throws(WARCError) in
                try emit(text)
            }
            return
        }
        try self.spill()
        var readers = self.runs.map { RunReader(descriptor: $0) }
        try Self.writeFile(path) { (emit: ([UInt8]) throws(WARCError) -> Void) throws(WARCError) in
            var heads: [[UInt8]?] = []
            for index in readers.indices {
                heads.append(try readers[index].nextLine())
            }
            var out: [UInt8] = []
            out.reserveCapacity(1 << 20)
            while true {
                var least: Int?
                for (index, head) in heads.enumerated() {
                    guard let head else { continue }
                    if let current = least, let best = heads[current],
                        !head.withUnsafeBytes({ line in
                            best.withUnsafeBytes { Self.precedes(line, line.indices, $0, $0.indices) }
                        })
                    {
                        continue
                    }
                    least = index
                }
                guard let least, let line = heads[least] else {
                    break
                }
                out += line
                out.append(UInt8(ascii: "\n"))
                if out.count >= 1 << 20 {
                    try emit(out)
                    out.removeAll(keepingCapacity: true)
                }
                heads[least] = try readers[least].nextLine()
            }
            try emit(out)
        }
    }

    /// The lines in memory, sorted, each with its line break.
    private func sortedText() -> [UInt8] {
        let bytes = self.bytes
        let order = bytes.withUnsafeBytes { buffer in
            self.lines.sorted { Self.precedes(buffer, $0, buffer, $1) }
        }
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count + order.count)
        for range in order {
            text += bytes[range]
            text.append(UInt8(ascii: "\n"))
        }
        return text
    }

    /// Whether the bytes `left[lhs]` sort before `right[rhs]` (memcmp: lines share long SURT
    /// prefixes, which a generic comparison went through a byte at a time).
    private static func precedes(
        _ left: UnsafeRawBufferPointer, _ lhs: Range<Int>, _ right: UnsafeRawBufferPointer, _ rhs: Range<Int>
    ) -> Bool {
        let common = min(lhs.count, rhs.count)
        if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase + lhs.lowerBound, rightBase + rhs.lowerBound, common)
            if order != 0 {
                return order < 0
            }
        }
        return lhs.count < rhs.count
    }

    /// Sorts the lines in memory into a run of their own.
    private func spill() throws(WARCError) {
        guard !self.lines.isEmpty else {
            return
        }
        var template = Array((self.folder + "/.cdxj-run-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else {
            throw WARCError.io("create a sorting run in", self.folder, errno: errno)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { buffer in
            if let name = buffer.baseAddress {
                _ = unlink(name)
            }
        }
        self.runs.append(descriptor)
        try Self.writeAll(self.sortedText(), to: descriptor, path: self.folder)
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw WARCError.io("rewind a sorting run in", self.folder, errno: errno)
        }
        self.bytes.removeAll(keepingCapacity: true)
        self.lines.removeAll(keepingCapacity: true)
    }

    private func discardRuns() {
        for descriptor in self.runs {
            close(descriptor)
        }
        self.runs = []
    }

    /// Creates (or replaces) `path` and lets `body` emit its bytes in pieces.
    private static func writeFile(
        _ path: String, _ body: (_ emit: ([UInt8]) throws(WARCError) -> Void) throws(WARCError) -> Void
    ) throws(WARCError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WARCError.io("write", path, errno: errno)
        }
        defer { close(descriptor) }
        try body { (bytes: [UInt8]) throws(WARCError) in try Self.writeAll(bytes, to: descriptor, path: path) }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(WARCError) {
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { writeBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR {
                    continue
                }
                throw WARCError.io("write", path, errno: errno)
            }
            done += count
        }
    }

    /// A run's lines, one at a time, read 256 KiB at a time.
    private struct RunReader {
        let descriptor: Int32
        private var buffer: [UInt8] = []
        private var position = 0
        private var finished = false

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// The next line without its line break; `nil` at the run's end.
        mutating func nextLine() throws(WARCError) -> [UInt8]? {
            while true {
                if let newline = self.buffer[self.position...].firstIndex(of: UInt8(ascii: "\n")) {
                    defer { self.position = newline + 1 }
                    return Array(self.buffer[self.position..<newline])
                }
                if self.finished {
                    return nil
                }
                self.buffer.removeFirst(self.position)
                self.position = 0
                let start = self.buffer.count
                self.buffer += repeatElement(0, count: 1 << 18)
                let count = self.buffer[start...].withUnsafeMutableBytes {
                    read(self.descriptor, $0.baseAddress, $0.count)
                }
                let error = errno
                self.buffer.removeLast((1 << 18) - max(count, 0))
                if count < 0 {
                    if error == EINTR {
                        continue
                    }
                    throw WARCError.io("read", "a CDXJ sorting run", errno: error)
                }
                self.finished = count == 0
            }
        }
    }
}

// write(2) under a name of its own: inside the class, `write` is its method.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
