import BatchFetch

#if canImport(Glibc)
    import Glibc
#endif

/// Where merged records go: takes a full buffer (writing it, or handing it to a writer thread)
/// and leaves an empty one in its place, ideally with capacity. Throws to stop the merge (the
/// reader went away, the disk is full).
public typealias MergeSink = (inout [UInt8]) throws(MergeError) -> Void

/// The merge's output: records are copied into a buffer that goes to a ``Sink`` whole, always
/// at a record's end, so that the record being copied can be taken back (a cut-off or duplicate
/// record), and the previous one is kept to compare a duplicate with.
///
/// Holds ``flushSize`` bytes or a little more, and more only while one record is longer.
///
/// Noncopyable and a struct: the merge loop keeps it in a local and appends to it once per
/// record with no reference counting or exclusivity checks. Threading: one thread at a time.
struct MergeOutputBuffer: ~Copyable {
    private var buffer: [UInt8] = []
    /// The record being copied: `recordStart..<buffer.count`.
    private var recordStart = 0
    /// The last record kept: `previousStart..<recordStart`, or ``previousCopy`` after a flush.
    private var previousStart = 0
    private var previousCopy: [UInt8] = []
    private var previousFlushed = false
    private let sink: MergeSink
    private let flushSize: Int

    init(flushSize: Int = 1 << 20, sink: @escaping MergeSink) {
        self.flushSize = flushSize
        self.sink = sink
        self.buffer.reserveCapacity(flushSize + flushSize / 4)
    }

    /// A sink that writes to `descriptor` at once, retrying short writes.
    static func writing(to descriptor: Int32) -> MergeSink {
        { (bytes: inout [UInt8]) throws(MergeError) in
            let failure = bytes.withUnsafeBytes { raw -> MergeError? in
                var position = 0
                while let base = raw.baseAddress, position < raw.count {
                    let done = write(descriptor, base + position, raw.count - position)
                    if done > 0 {
                        position += done
                    } else if done < 0 && errno == EINTR {
                        continue
                    } else if done < 0 && errno == EPIPE {
                        return MergeError(.brokenPipe, "the output's reader went away")
                    } else {
                        let reason = done < 0 ? String(cString: strerror(errno)) : "nothing written"
                        return MergeError(.unwritable, "cannot write the merged records: \(reason)")
                    }
                }
                return nil
            }
            if let failure {
                throw failure
            }
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Starts a record (handing what is buffered to the sink when that is ``flushSize`` or more).
    @inline(__always)
    mutating func beginRecord() throws(MergeError) {
        if self.buffer.count >= self.flushSize {
            try self.flush()
        }
        self.recordStart = self.buffer.count
    }

    /// Appends bytes to the record being copied.
    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        self.buffer.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Keeps the record being copied: it becomes the previous record.
    @inline(__always)
    mutating func keepRecord() {
        self.previousStart = self.recordStart
        self.previousFlushed = false
        self.recordStart = self.buffer.count
    }

    /// Takes back the record being copied.
    mutating func dropRecord() {
        self.buffer.removeSubrange(self.recordStart...)
    }

    /// The previous record and the one being copied, newlines included (copies: for the rare
    /// duplicate only).
    var previousAndCurrent: (previous: [UInt8], current: [UInt8]) {
        let previous =
            self.previousFlushed ? self.previousCopy : Array(self.buffer[self.previousStart..<self.recordStart])
        return (previous, Array(self.buffer[self.recordStart...]))
    }

    /// Hands everything kept to the sink.
    mutating func finish() throws(MergeError) {
        if !self.buffer.isEmpty {
            try self.flush()
        }
    }

    /// Hands the buffer to the sink, keeping a copy of the last record to compare with.
    private mutating func flush() throws(MergeError) {
        if !self.previousFlushed {
            self.previousCopy.removeAll(keepingCapacity: true)
            self.previousCopy.append(contentsOf: self.buffer[self.previousStart..<self.recordStart])
            self.previousFlushed = true
        }
        try self.sink(&self.buffer)
        self.buffer.removeAll(keepingCapacity: true)
        self.buffer.reserveCapacity(self.flushSize + self.flushSize / 4)
        self.previousStart = 0
        self.recordStart = 0
    }
}
