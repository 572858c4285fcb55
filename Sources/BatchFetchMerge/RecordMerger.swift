import BatchFetch

#if canImport(Glibc)
    import Glibc
#endif

/// The k-way merge of sorted record streams by index, with the index bookkeeping done on the way:
/// gaps (missing indices), duplicates (kept once when they agree, an error when they do not),
/// indices past the input's end, and streams that turn out not to be sorted.
///
/// Memory: each source's fixed buffer, the output buffer, and a heap of one key per source;
/// nothing grows with the number of records.
///
/// Threading: one thread at a time.
final class RecordMerger {
    /// What the merge saw.
    struct Outcome {
        /// Records written.
        var records = 0
        /// Indices missing before the last record (and after it, when the input's size is known).
        var missing = 0
        /// The first gaps, at most ``RecordMerger/keptGaps``.
        var gaps: [ClosedRange<Int>] = []
        /// Records dropped because an identical record (`time_ms` and `attempts` aside) came first.
        var duplicates = 0
        /// The highest index written, or `nil` when none was.
        var lastIndex: Int?
        /// Records read per input file (cut-off last records not counted).
        var recordsByOrigin: [Int: Int] = [:]
        /// Input files whose last record was cut off, with that record's index when readable.
        var cutOff: [Int: Int?] = [:]
    }

    /// A stream to merge.
    enum Input {
        /// A records file, read with a buffer of `bufferSize` bytes unless it is mapped.
        case file(path: String, origin: Int, bufferSize: Int)
        /// A sorted run of part of input `origin`: a temporary file, open, which the merge closes.
        case run(descriptor: Int32, name: String, origin: Int, bufferSize: Int)
    }

    static let keptGaps = 12
    /// Index bits of a heap key; the rest number the source.
    private static let sourceBits: UInt64 = 20

    /// The sources, in place: the loop calls them through this pointer with no reference counting.
    private let sources: UnsafeMutablePointer<RecordSource>
    private let count: Int
    private let sink: MergeSink
    /// The input's number of records when known: indices must be below it.
    private let total: Int?

    /// Opens every input. - Throws: ``MergeError/Kind/unreadable`` (runs not opened are closed).
    init(inputs: [Input], sink: @escaping MergeSink, total: Int?) throws(MergeError) {
        precondition(inputs.count < 1 << Int(Self.sourceBits), "too many merge sources")
        let sources = UnsafeMutablePointer<RecordSource>.allocate(capacity: max(1, inputs.count))
        for (position, input) in inputs.enumerated() {
            do throws(MergeError) {
                switch input {
                case .file(let path, let origin, let bufferSize):
                    (sources + position).initialize(
                        to: try RecordSource(path: path, origin: origin, bufferSize: bufferSize))
                case .run(let descriptor, let name, let origin, let bufferSize):
                    (sources + position).initialize(
                        to: RecordSource(
                            descriptor: descriptor, owned: true, name: name, origin: origin, bufferSize: bufferSize))
                }
            } catch {
                sources.deinitialize(count: position)
                sources.deallocate()
                for case .run(let descriptor, _, _, _) in inputs[(position + 1)...] {
                    close(descriptor)
                }
                throw error
            }
        }
        self.sources = sources
        self.count = inputs.count
        self.sink = sink
        self.total = total
    }

    deinit {
        self.sources.deinitialize(count: self.count)
        self.sources.deallocate()
    }

    func run() throws(MergeError) -> Outcome {
        var outcome = Outcome()
        var heap = KeyHeap(capacity: self.count)
        defer { heap.deallocate() }
        let sources = self.sources
        var output = MergeOutputBuffer(sink: self.sink)
        for number in 0..<self.count {
            if try sources[number].advance() {
                heap.insert(try self.key(sources[number].index, number))
            }
        }
        var expected = 0
        var previous: (index: Int, source: Int)? = nil
        while let top = heap.minimum {
            let number = Int(top & ((1 << Self.sourceBits) - 1))
            let index = sources[number].index
            try output.beginRecord()
            let whole = try sources[number].copyRecord(into: &output)
            if !whole {
                output.dropRecord()
            } else if let previous, previous.index == index {
                let (first, second) = output.previousAndCurrent
                output.dropRecord()
                guard RecordComparison.sameResult(first, second) else {
                    throw MergeError(
                        .conflictingDuplicates,
                        "index \(index) has two different records, in \(sources[previous.source].name) and "
                            + "\(sources[number].name) (more than time_ms and attempts differ): keep one of them and merge again"
                    )
                }
                outcome.duplicates += 1
            } else {
                output.keepRecord()
                if index > expected {
                    self.noteGap(expected...(index - 1), in: &outcome)
                }
                expected = index + 1
                outcome.records += 1
                previous = (index, number)
            }
            if try sources[number].advance() {
                let next = sources[number].index
                guard next >= index else {
                    throw MergeError(
                        .statsMismatch,
                        "\(sources[number].name) is not in index order (index \(next) after \(index)) although its "
                            + "stats say --order input: the stats do not describe this file")
                }
                heap.replaceMinimum(with: try self.key(next, number))
            } else {
                heap.removeMinimum()
            }
        }
        try output.finish()
        if let total = self.total, expected < total {
            self.noteGap(expected...(total - 1), in: &outcome)
        }
        outcome.lastIndex = previous?.index
        for number in 0..<self.count {
            outcome.recordsByOrigin[sources[number].origin, default: 0] += sources[number].records
            if sources[number].cutOff.present {
                outcome.cutOff[sources[number].origin] = sources[number].cutOff.index
            }
        }
        return outcome
    }

    /// The heap key of source `number` at record `index`: the index, then the source number, so
    /// equal indices come out in input order.
    @inline(__always)
    private func key(_ index: Int, _ number: Int) throws(MergeError) -> UInt64 {
        if let total = self.total, index >= total {
            throw MergeError(
                .mixedSplits,
                "\(self.sources[number].name) has a record with index \(index), but the input has \(total) URL lines: "
                    + "it is not a shard of this input")
        }
        guard index < 1 << (64 - Int(Self.sourceBits)) else {
            throw MergeError(
                .notARecord, "\(self.sources[number].name): index \(index) is too large to be a line number")
        }
        return UInt64(index) << Self.sourceBits | UInt64(number)
    }

    private func noteGap(_ gap: ClosedRange<Int>, in outcome: inout Outcome) {
        outcome.missing += gap.count
        if outcome.gaps.count < Self.keptGaps {
            outcome.gaps.append(gap)
        }
    }
}

/// A binary min-heap of merge keys in one allocation: the merge does a replace per record, and
/// this keeps it to a few compares with no retain or release.
private struct KeyHeap {
    private let keys: UnsafeMutablePointer<UInt64>
    private var count = 0

    init(capacity: Int) {
        self.keys = .allocate(capacity: max(capacity, 1))
    }

    func deallocate() {
        self.keys.deallocate()
    }

    var minimum: UInt64? { self.count > 0 ? self.keys[0] : nil }

    mutating func insert(_ key: UInt64) {
        var child = self.count
        self.count += 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard key < self.keys[parent] else {
                break
            }
            self.keys[child] = self.keys[parent]
            child = parent
        }
        self.keys[child] = key
    }

    mutating func removeMinimum() {
        self.count -= 1
        if self.count > 0 {
            self.siftDown(self.keys[self.count])
        }
    }

    mutating func replaceMinimum(with key: UInt64) {
        self.siftDown(key)
    }

    private func siftDown(_ key: UInt64) {
        var parent = 0
        while true {
            var child = 2 * parent + 1
            guard child < self.count else {
                break
            }
            if child + 1 < self.count && self.keys[child + 1] < self.keys[child] {
                child += 1
            }
            guard self.keys[child] < key else {
                break
            }
            self.keys[parent] = self.keys[child]
            parent = child
        }
        self.keys[parent] = key
    }
}
