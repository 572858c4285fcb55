import ArgumentParser
import BatchFetch
import BatchFetchMerge
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where `fetch` reads its URLs: arguments and a file are read lazily on the consuming task;
/// standard input is read on a thread of its own, so records flow while the pipe is open.
/// With `--shard`, only this shard's lines are fetched and each result is mapped back to its
/// line's global index.
final class FetchInput: Sendable {
    enum Source: Sendable {
        case arguments([String])
        case file(path: String, arguments: [String])
        case standardInput(ThreadedInput<Request>)
    }

    let source: Source
    private let shard: Shard?
    /// Lines not to fetch (`--skip-existing`): given the line's global index and URL.
    private let skip: LineSelector.Skip?
    private let indices: IndexMap
    /// How lines become requests (`--input-format`, the request flags).
    private let lines: LineRequests
    /// The `id`, `meta` and problems of JSON request lines, until their records are written.
    private let notes: LineNotes
    /// How many lines ``skip`` left out.
    let skipped: SkipCounter
    /// With `--shard`: the whole input's line count and digest, and this shard's line count.
    let tally: ShardTally
    /// Why the input stopped before its end, when a read failed.
    let readFailure: ReadFailure

    private init(
        source: Source, shard: Shard?, skip: LineSelector.Skip?, indices: IndexMap, lines: LineRequests,
        notes: LineNotes, skipped: SkipCounter, tally: ShardTally = ShardTally(),
        readFailure: ReadFailure = ReadFailure()
    ) {
        self.source = source
        self.lines = lines
        self.notes = notes
        self.readFailure = readFailure
        self.shard = shard
        self.skip = skip
        self.indices = indices
        self.skipped = skipped
        self.tally = tally
    }

    /// Opens the input. - Throws: ``ExitCode/usage`` when a file cannot be read or there is no input.
    static func open(
        urls: [String], path: String?, shard: Shard?, skip: LineSelector.Skip? = nil,
        lines: LineRequests = LineRequests()
    ) throws -> FetchInput {
        let indices = IndexMap()
        let notes = LineNotes()
        let counter = SkipCounter()
        if let path, path != "-" {
            do {
                _ = try LineReader(path: path)
            } catch {
                FileHandleOutput.standardError.write("batchfetch: \(error)\n")
                throw ExitCode.usage
            }
            return FetchInput(
                source: .file(path: path, arguments: urls), shard: shard, skip: skip, indices: indices, lines: lines,
                notes: notes, skipped: counter)
        }
        if path == nil && !urls.isEmpty {
            return FetchInput(
                source: .arguments(urls), shard: shard, skip: skip, indices: indices, lines: lines, notes: notes,
                skipped: counter)
        }
        if path == nil && isatty(0) != 0 {
            FileHandleOutput.standardError.write(
                "batchfetch: no URLs: give them as arguments, with -i FILE, or on standard input\n")
            throw ExitCode.usage
        }
        if let reason = LineReader.unreadable(0) {
            FileHandleOutput.standardError.write("batchfetch: cannot read standard input: \(reason)\n")
            throw ExitCode.usage
        }
        let tally = ShardTally()
        let failure = ReadFailure()
        let stream = ThreadedInput<Request> { send in
            var selector = LineSelector(
                shard: shard, skip: skip, skipped: counter, tally: tally, lines: lines, notes: notes)
            for line in urls {
                if let request = selector.request(line, record: indices.remember), !send(request) {
                    return
                }
            }
            var reader = LineReader(fileDescriptor: 0)
            while let line = reader.next() {
                if let request = selector.request(line, record: indices.remember), !send(request) {
                    return
                }
            }
            failure.note(reader, path: "-")
        }
        return FetchInput(
            source: .standardInput(stream), shard: shard, skip: skip, indices: indices, lines: lines, notes: notes,
            skipped: counter, tally: tally, readFailure: failure)
    }

    /// How many requests the input holds in all (shard and skips applied), read again from the
    /// start without fetching; `nil` for standard input, which cannot be read again. For saying
    /// how many were never fetched when a run stopped early.
    func requestCount() -> Int? {
        var arguments: [String] = []
        var reader: LineReader?
        switch self.source {
        case .arguments(let urls):
            arguments = urls
        case .file(let file, let urls):
            arguments = urls
            reader = try? LineReader(path: file)
        case .standardInput:
            return nil
        }
        var requests = LazyRequests(
            arguments: arguments, reader: reader, path: "-",
            selector: LineSelector(shard: self.shard, skip: self.skip, lines: self.lines), indices: IndexMap(),
            failure: ReadFailure())
        var count = 0
        while requests.next() != nil {
            count += 1
        }
        return count
    }

    /// The lazily read requests of an argument or file source (call on the consuming task).
    func lazyRequests() -> LazyRequests {
        var arguments: [String] = []
        var reader: LineReader?
        var path = "-"
        switch self.source {
        case .arguments(let urls):
            arguments = urls
        case .file(let file, let urls):
            arguments = urls
            path = file
            do {
                reader = try LineReader(path: file)
            } catch {
                self.readFailure.note("\(error)")
            }
        case .standardInput:
            break
        }
        return LazyRequests(
            arguments: arguments, reader: reader, path: path,
            selector: LineSelector(
                shard: self.shard, skip: self.skip, skipped: self.skipped, tally: self.tally, lines: self.lines,
                notes: self.notes),
            indices: self.indices, failure: self.readFailure)
    }

    /// With `--shard`, the `shard` object of the stats file: `path` is `-i`'s value, `complete`
    /// whether the run read all of its input and wrote every record.
    func shardManifest(path: String?, order: RecordOrder, records: Int, complete: Bool, output: String?)
        -> ShardManifest?
    {
        guard let shard = self.shard else {
            return nil
        }
        var input = path
        if case .standardInput = self.source {
            input = "-"
        }
        return self.tally.manifest(
            shard: shard, input: input, order: order.rawValue, records: records, complete: complete, output: output)
    }

    /// What the line of the result with this engine index carries to its record, taken once.
    func note(of engineIndex: Int) -> LineNote? {
        self.notes.take(engineIndex)
    }

    /// The global line index of the result with this engine index.
    func globalIndex(of engineIndex: Int) -> Int {
        guard self.shard != nil || self.skip != nil else {
            return engineIndex
        }
        return self.indices.take(engineIndex) ?? engineIndex
    }

    /// The global line index of the record whose transfer answered `result`, when another's did.
    /// That record was written first and its entry in ``indices`` is gone, and keeping entries
    /// for whatever the engine may still name would grow with the input: the engine hands the
    /// line back instead, as the tag ``LineSelector`` put on the request.
    func globalIndex(ofOwnerOf result: FetchResult) -> Int? {
        guard let owner = result.sharedWith else {
            return nil
        }
        return result.sharedWithTag ?? owner
    }
}

/// Engine index → global line index for results not yet written (only with `--shard`).
final class IndexMap: Sendable {
    private let map = Mutex<[Int: Int]>([:])

    func remember(engineIndex: Int, globalIndex: Int) {
        self.map.withLock { $0[engineIndex] = globalIndex }
    }

    func take(_ engineIndex: Int) -> Int? {
        self.map.withLock { $0.removeValue(forKey: engineIndex) }
    }
}

/// The requests of the argument URLs, then of a file's lines, read one at a time as the engine
/// asks (a concrete type: a chain of `AnySequence`s cost a dynamic dispatch per step per line).
struct LazyRequests: Sequence, IteratorProtocol {
    private var arguments: IndexingIterator<[String]>
    private var reader: LineReader?
    private let path: String
    private var selector: LineSelector
    private let indices: IndexMap
    private let failure: ReadFailure

    init(
        arguments: [String], reader: LineReader?, path: String, selector: LineSelector, indices: IndexMap,
        failure: ReadFailure
    ) {
        self.arguments = arguments.makeIterator()
        self.reader = reader
        self.path = path
        self.selector = selector
        self.indices = indices
        self.failure = failure
    }

    mutating func next() -> Request? {
        while let line = self.arguments.next() ?? self.reader?.next() {
            if let request = self.selector.request(line, record: self.indices.remember) {
                return request
            }
        }
        if let reader = self.reader {
            self.failure.note(reader, path: self.path)
            self.reader = nil
        }
        return nil
    }
}

/// Turns input lines into requests: skips blanks and comments, trims, reads JSON request lines,
/// applies the shard and the skip predicate.
struct LineSelector {
    /// Whether the line with this global index and URL is left out (e.g. its file is saved).
    typealias Skip = @Sendable (_ globalIndex: Int, _ url: String) -> Bool

    let shard: Shard?
    let skip: Skip?
    let skipped: SkipCounter?
    let tally: ShardTally?
    let lines: LineRequests
    let notes: LineNotes?
    private var global = 0
    private var selected = 0
    private var digest = InputDigest()
    private var inShard = 0

    init(
        shard: Shard?, skip: Skip? = nil, skipped: SkipCounter? = nil, tally: ShardTally? = nil,
        lines: LineRequests = LineRequests(), notes: LineNotes? = nil
    ) {
        self.shard = shard
        self.skip = skip
        self.skipped = skipped
        self.tally = tally
        self.lines = lines
        self.notes = notes
    }

    mutating func request(_ text: String, record: (_ engineIndex: Int, _ globalIndex: Int) -> Void) -> Request? {
        guard let line = self.lines.read(text, hashing: self.shard != nil) else {
            return nil
        }
        var request = line.request
        defer { self.global += 1 }
        if let shard = self.shard {
            self.digest.add(lineHash: line.lineHash)
            let contained = shard.contains(hash: line.shardHash)
            self.inShard += contained ? 1 : 0
            self.tally?.update(lines: self.global + 1, digest: self.digest, inShard: self.inShard)
            guard contained else {
                return nil
            }
        }
        if let skip = self.skip, line.note?.problem == nil, skip(self.global, request.url) {
            self.skipped?.add()
            return nil
        }
        if self.shard != nil || self.skip != nil {
            record(self.selected, self.global)
            request.tag = self.global
        }
        if let note = line.note {
            self.notes?.remember(note, engineIndex: self.selected)
        }
        self.selected += 1
        return request
    }

    /// The request an input line asks for, or `nil` for a blank or comment line.
    static func request(fromLine line: String) -> Request? {
        let bytes = line.utf8
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), bytes[first] != UInt8(ascii: "#") else {
            return nil
        }
        if first == bytes.startIndex, let last = bytes.last, !isBlank(last) {
            return Request(line)
        }
        let last = bytes.lastIndex(where: { !isBlank($0) }) ?? first
        return Request(String(Substring(bytes[first...last])))
    }
}

/// Why the input ended before its last line (a failed read), said after the records read so far
/// are written. Written by the thread reading the input, read by the command at the end.
final class ReadFailure: Sendable {
    private let message = Mutex<String?>(nil)

    /// The failure's message, if the input could not be read to its end.
    var value: String? { self.message.withLock { $0 } }

    func note(_ message: String) {
        self.message.withLock { $0 = $0 ?? message }
    }

    /// Notes `reader`'s read error, if it stopped on one.
    func note(_ reader: LineReader, path: String) {
        if let error = reader.readError {
            let name = path == "-" ? "standard input" : path
            self.note("cannot read \(name): \(String(cString: strerror(error)))")
        }
    }
}

/// Counts the lines a ``LineSelector`` skipped, read by the summary on another thread.
final class SkipCounter: Sendable {
    private let count = Atomic<Int>(0)

    func add() {
        self.count.add(1, ordering: .relaxed)
    }

    var value: Int { self.count.load(ordering: .relaxed) }
}

/// What `--shard` saw of the input, for the `shard` object of the stats file (see
/// ``ShardManifest``): every URL line counted and folded into the digest, this shard's counted.
/// Written by the thread reading the input, read by the summary on another.
final class ShardTally: Sendable {
    private let lines = Atomic<Int>(0)
    private let digest = Atomic<UInt64>(InputDigest().value)
    private let inShard = Atomic<Int>(0)

    func update(lines: Int, digest: InputDigest, inShard: Int) {
        self.digest.store(digest.value, ordering: .relaxed)
        self.inShard.store(inShard, ordering: .relaxed)
        self.lines.store(lines, ordering: .releasing)
    }

    /// This run's manifest, given how it ended.
    func manifest(
        shard: Shard, input: String?, order: String, records: Int, complete: Bool, output: String?
    ) -> ShardManifest {
        let lines = self.lines.load(ordering: .acquiring)
        return ShardManifest(
            index: shard.index, count: shard.count, input: input, inputLines: lines,
            inputDigest: InputDigest(value: self.digest.load(ordering: .relaxed)).hex,
            lines: self.inShard.load(ordering: .relaxed), records: records, order: order, complete: complete,
            output: output ?? Self.standardOutputFile(), directory: FileManager.default.currentDirectoryPath,
            command: ShardManifest.redacting(arguments: CommandLine.arguments))
    }

    /// The file standard output was redirected to, when it is a regular file (so that a re-run
    /// command can redirect to it again).
    private static func standardOutputFile() -> String? {
        var status = stat()
        guard fstat(1, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/1"),
            path.hasPrefix("/")
        else {
            return nil
        }
        return path
    }
}
