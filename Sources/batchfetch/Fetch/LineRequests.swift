import ArgumentParser
import BatchFetch
import BatchFetchMerge
import Synchronization

/// How `fetch` reads its input lines (`--input-format`).
enum InputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// A line starting with `{` is a JSON request, any other a URL.
    case auto
    /// Every line is a URL.
    case urls
    /// Every line is a JSON request (``RequestLine``).
    case jsonl
    /// Every line is a vegeta JSON target.
    case vegeta
}

/// What a JSON request line carries to its record besides the request.
struct LineNote: Sendable {
    /// `,"id":…,"meta":…` as the record carries it after `index`; empty when the line had neither.
    var echo: [UInt8]
    /// Why the line is not a request that can be sent: its record says so, and nothing is sent.
    var problem: FetchError?
    /// The line's `url`, for the record of a line with a problem.
    var url: String
}

/// The notes of lines read and not yet written, by engine index; an entry lives from the line's
/// reading to its record's writing, so the table holds at most what the engine has outstanding.
/// Kept out of ``Request``, whose equality the engine's de-duplication keys on: two lines that
/// differ only in `id` are the same request and get one record each.
final class LineNotes: Sendable {
    private let notes = Mutex<[Int: LineNote]>([:])
    /// Whether any note was ever remembered: a URL list's records then take no lock. A line's note
    /// is remembered before its request is submitted, so before its result can come back.
    private let used = Atomic<Bool>(false)

    func remember(_ note: LineNote, engineIndex: Int) {
        self.notes.withLock { $0[engineIndex] = note }
        self.used.store(true, ordering: .releasing)
    }

    func take(_ engineIndex: Int) -> LineNote? {
        guard self.used.load(ordering: .acquiring) else {
            return nil
        }
        return self.notes.withLock { $0.removeValue(forKey: engineIndex) }
    }
}

/// Turns one input line into a request: a URL, or a JSON request line, with the flags' defaults.
struct LineRequests: Sendable {
    /// One line read.
    struct Line {
        var request: Request
        var note: LineNote?
        /// What the whole input's digest folds in: the line's hash (a URL line's trimmed URL).
        var lineHash: UInt64
        /// What `--shard` takes modulo N: a JSON line's `id` when it has one, else ``lineHash``,
        /// so that many requests to one URL spread over the shards.
        var shardHash: UInt64
    }

    let format: InputFormat
    let template: RequestTemplate

    init(format: InputFormat = .auto, template: RequestTemplate = RequestTemplate()) {
        self.format = format
        self.template = template
    }

    /// The request a line asks for, or `nil` for a blank or comment line; hashes only with
    /// `hashing` (`--shard`).
    func read(_ text: String, hashing: Bool) -> Line? {
        guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 }), first != UInt8(ascii: "#") else {
            return nil
        }
        if self.format == .urls || self.format == .auto && first != UInt8(ascii: "{") {
            guard var request = LineSelector.request(fromLine: text) else {
                return nil
            }
            if !self.template.isEmpty {
                self.template.apply(to: &request)
            }
            let hash = hashing ? InputDigest.hash(request.url) : 0
            return Line(request: request, note: nil, lineHash: hash, shardHash: hash)
        }
        var text = text
        let line = text.withUTF8 { bytes in
            RequestLine(parsing: UnsafeRawBufferPointer(bytes), format: self.format == .vegeta ? .vegeta : .batchfetch)
        }
        var echo: [UInt8] = []
        if line.id != nil || line.meta != nil {
            echo.reserveCapacity(14 + (line.id?.count ?? 0) + (line.meta?.count ?? 0))
            if let id = line.id {
                echo.append(contentsOf: ",\"id\":".utf8)
                echo.append(contentsOf: id)
            }
            if let meta = line.meta {
                echo.append(contentsOf: ",\"meta\":".utf8)
                echo.append(contentsOf: meta)
            }
        }
        let lineHash = hashing ? InputDigest.hash(text) : 0
        let shardHash = hashing ? line.id.map { InputDigest.hash(bytes: $0) } ?? lineHash : 0
        if let problem = line.problem {
            // An empty URL, which the engine refuses in place without sending anything; the
            // record then tells the line's own problem (see ``LineNote/problem``).
            // A line that is no JSON object at all (a URL in a JSON lines input) keeps its text
            // as its record's URL, as a URL line would.
            let url = line.url ?? (first == UInt8(ascii: "{") ? "" : LineSelector.request(fromLine: text)?.url ?? "")
            return Line(
                request: Request(""), note: LineNote(echo: echo, problem: problem, url: url),
                lineHash: lineHash, shardHash: shardHash)
        }
        let request = self.template.request(for: line)
        let note = echo.isEmpty ? nil : LineNote(echo: echo, problem: nil, url: request.url)
        return Line(request: request, note: note, lineHash: lineHash, shardHash: shardHash)
    }
}
