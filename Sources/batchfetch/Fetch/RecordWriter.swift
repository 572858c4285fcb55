import BatchFetch
import BatchFetchFiles
import BatchFetchRobotsPolicy
import Foundation

/// Formats fetch results as NDJSON records:
/// `{"index","url","status","ok","attempts","bytes","time_ms","total_ms","content_type","body","error"}`;
/// a record another's transfer answered has `"shared_with"` before `"attempts"` (see
/// `RecordWriter+Facts.swift`), a base64 body is followed by `"body_encoding":"base64"`, and with a
/// ``BodyFileStore`` the body is saved to a file and `"file","sha256"` stand where `"body"` does;
/// the response facts of `--fields` come last (`RecordWriter+Details.swift`).
struct RecordWriter {
    /// How bodies go into records.
    enum BodyMode: String, CaseIterable {
        /// Embedded JSON when the body is JSON; else a string when it is text (valid UTF-8 or in
        /// its declared charset, not a binary media type), else base64.
        case auto
        /// Embedded JSON; a body that is not JSON makes the record fail (`invalidJSON`).
        case json
        /// Always a string (from its declared charset; invalid UTF-8 repaired).
        case text
        /// No body (`null`).
        case none
        /// Always base64, whatever the body (binary-safe).
        case base64
    }

    let bodyMode: BodyMode
    let status: StatusPolicy
    /// Whether records end with `"cache":"hit"|"revalidated"|"miss"` (only with `--cache`, so
    /// records without it keep their bytes).
    let cacheField: Bool
    /// The response facts each record ends with (none by default, so records keep their bytes).
    let fields: RecordFields
    /// When set, only this key path's value is kept (implies JSON).
    let contentPath: Envelope?
    /// When set, ok bodies are saved here and records name their files instead of holding them.
    let files: BodyFileStore?
    /// robots.txt's verdicts (`--robots`), for the `robots` field and `robots…` errors' details.
    let robots: RobotsPolicy?
    /// Where `--warc` keeps each result's exchanges, written as its record closes.
    let archive: RunArchive?
    /// The records formatted so far, except the large bodies in ``splices``.
    var json = JSONBytes()

    /// Embedded values at least this large are not copied into ``json``: ``drain(to:)`` writes
    /// them straight from the response, between the text before and after them, in one `writev`.
    /// Copying a 64 KB body only to write it out again cost about as much as writing it.
    static let spliceMinimum = 16 * 1024
    /// Large values waiting to be written, each with the offset in ``json`` it belongs at.
    private var splices: [(offset: Int, value: Spliced)] = []
    private var splicedBytes = 0

    /// Bytes formatted and not yet written out.
    var pendingBytes: Int { self.json.buffer.count + self.splicedBytes }

    init(
        bodyMode: BodyMode = .auto, status: StatusPolicy = .successful, contentPath: String? = nil,
        cacheField: Bool = false, files: BodyFileStore? = nil, fields: RecordFields = [],
        robots: RobotsPolicy? = nil, archive: RunArchive? = nil
    ) {
        self.files = files
        self.robots = robots
        self.archive = archive
        self.fields = fields
        self.bodyMode = bodyMode
        self.status = status
        self.cacheField = cacheField
        self.contentPath = contentPath.map { Envelope($0, noResults: .strict) }
        self.json.buffer.reserveCapacity(1 << 17)
    }

    /// Appends one record for `result`, numbered `index`; `sharedWith` numbers the record whose
    /// transfer answered it, when another's did; `echo` (a JSON request line's `,"id":…,"meta":…`)
    /// follows the index.
    /// - Returns: the error kind when the record is not ok, `nil` when it is.
    mutating func write(_ result: FetchResult, index: Int, sharedWith: Int?, echo: [UInt8] = []) -> FetchError.Kind? {
        self.json.raw("{\"index\":")
        self.json.int(index)
        if !echo.isEmpty {
            self.json.raw(echo)
        }
        self.json.raw(",\"url\":")
        self.json.string(result.request.url.redactedURL)
        guard case .success(let response) = result.outcome else {
            let error = result.error ?? .cancelled
            self.status(of: error)
            self.json.raw(",\"ok\":false")
            self.attempts(result, sharedWith: sharedWith)
            self.json.raw(",\"bytes\":0,\"time_ms\":null")
            self.totalTime(result)
            self.json.raw(",\"content_type\":null")
            self.json.raw(self.files == nil ? ",\"body\":null" : ",\"file\":null,\"sha256\":null")
            self.error(error, gaveUp: result.gaveUp, url: result.request.url)
            self.end(result)
            return error.kind
        }
        // Looked up once: the record shows it, and `--body auto` reads it.
        let contentType = response.contentType
        // The body decides `ok`, which comes before it: judge it first, then write in order.
        let (content, bodyError) =
            self.files == nil ? self.content(of: response, contentType: contentType) : (.literal("null"), nil)
        var failure: FetchError? =
            self.status.accepts(response.status)
            ? bodyError : FetchError.httpStatus(response.status, snippet: nil)
        var saved: BodyFileStore.Saved?
        if let files = self.files, failure == nil {
            do throws(FetchError) {
                if let spooled = response.spooledBody {
                    saved = try files.save(spooled, index: index, url: result.request.url)
                } else {
                    saved = try files.save(response.body, index: index, url: result.request.url)
                }
            } catch {
                failure = error
            }
        }
        self.json.raw(",\"status\":")
        self.json.int(response.status)
        self.json.raw(failure == nil ? ",\"ok\":true" : ",\"ok\":false")
        self.attempts(result, sharedWith: sharedWith)
        self.json.raw(",\"bytes\":")
        self.json.int(response.bodyByteCount)
        self.json.raw(",\"time_ms\":")
        self.json.milliseconds(response.timings.total)
        self.totalTime(result)
        self.json.raw(",\"content_type\":")
        self.json.string(contentType)
        if self.files != nil {
            self.file(saved)
        } else {
            self.json.raw(",\"body\":")
            switch content {
            case .embedded(let slice): self.embed(slice)
            case .text(let body): self.text(body, base64Unless: false)
            case .textOrBase64(let body): self.text(body, base64Unless: true)
            case .base64(let body): self.base64(body)
            case .message(let text): self.json.string(text)
            case .literal(let literal): self.json.raw(literal)
            }
        }
        if let failure {
            // Why retrying stopped explains the status, not what the body or its file did.
            self.error(failure, gaveUp: failure.kind == .httpStatus ? result.gaveUp : nil)
            self.end(result)
            return failure.kind
        }
        self.json.raw(",\"error\":null")
        self.end(result)
        return nil
    }

    /// Closes the record, with its `cache` field and its response facts when asked for; archives
    /// its exchanges first, with `--warc`, so that the record can say where they went.
    private mutating func end(_ result: FetchResult) {
        let location = self.archive?.archive(result)
        if self.cacheField {
            self.json.raw(",\"cache\":")
            self.json.string((result.cache ?? .miss).rawValue)
        }
        if !self.fields.isEmpty {
            self.details(of: result, warc: location)
        }
        self.json.raw("}\n")
    }

    /// Writes everything formatted so far to `sink` and empties the writer.
    mutating func drain(to sink: FileHandleOutput) {
        if self.splices.isEmpty {
            sink.write(self.json.buffer)
        } else {
            self.json.buffer.withUnsafeBytes { text in
                var pieces: [UnsafeRawBufferPointer] = []
                pieces.reserveCapacity(2 * self.splices.count + 1)
                Self.collect(self.splices[...], from: text, after: 0, into: &pieces, then: sink.write(_:))
            }
            self.splices.removeAll(keepingCapacity: true)
            self.splicedBytes = 0
        }
        self.json.buffer.removeAll(keepingCapacity: true)
    }

    /// Gathers the text before each spliced value and the value itself (its bytes are only valid
    /// inside `withUnsafeBytes`, hence one nested call per value), then the rest of the text,
    /// and hands the pieces to `write`.
    private static func collect(
        _ splices: ArraySlice<(offset: Int, value: Spliced)>, from text: UnsafeRawBufferPointer, after start: Int,
        into pieces: inout [UnsafeRawBufferPointer], then write: ([UnsafeRawBufferPointer]) -> Void
    ) {
        guard let splice = splices.first else {
            pieces.append(UnsafeRawBufferPointer(rebasing: text[start...]))
            write(pieces)
            return
        }
        pieces.append(UnsafeRawBufferPointer(rebasing: text[start..<splice.offset]))
        splice.value.withUnsafeBytes { value in
            pieces.append(value)
            Self.collect(splices.dropFirst(), from: text, after: splice.offset, into: &pieces, then: write)
        }
    }

    /// A large value written straight from where it is held (see ``spliceMinimum``).
    private enum Spliced {
        /// Validated JSON, in the response's body.
        case json(JSONSlice)
        /// A JSON string literal made from a text body.
        case literal([UInt8])

        func withUnsafeBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
            switch self {
            case .json(let slice): slice.withUnsafeBytes(body)
            case .literal(let bytes): bytes.withUnsafeBytes(body)
            }
        }
    }

    /// What goes into a record's `body` field.
    private enum Content {
        /// Validated JSON, embedded as it is.
        case embedded(JSONSlice)
        /// The body as a JSON string: its bytes as UTF-8 text, ill-formed sequences as U+FFFD.
        case text(Data)
        /// The body as a JSON string if it is UTF-8 text, else in base64.
        case textOrBase64(Data)
        /// The body in base64.
        case base64(Data)
        /// A JSON string with this text (an envelope's message).
        case message(String)
        /// `null` or `""`.
        case literal(StaticString)
    }

    /// The body per the mode, and why it makes the record fail, if it does.
    private func content(of response: Response, contentType: String?) -> (Content, FetchError?) {
        let body = response.body
        if let envelope = self.contentPath {
            do throws(FetchError) {
                switch try envelope.content(of: body) {
                case .value(let slice): return (.embedded(slice), nil)
                case .null: return (.literal("null"), nil)
                case .message(let text): return (.message(text), nil)
                case .missing:
                    let message = "no '\(envelope.keyPath)' in the document"
                    return (.literal("null"), FetchError(kind: .missingKey, message: message))
                }
            } catch {
                return (.literal("null"), error)
            }
        }
        switch self.bodyMode {
        case .none:
            return (.literal("null"), nil)
        case .base64:
            return (.base64(body), nil)
        case .text:
            return (.text(Charset.utf8(body, contentType: contentType) ?? body), nil)
        case .auto where !body.isEmpty && Self.isBinary(contentType):
            return (.base64(body), nil)
        case .auto where !Self.mayBeJSON(body):
            return (.textOrBase64(Charset.utf8(body, contentType: contentType) ?? body), nil)
        case .auto, .json:
            if body.isEmpty {
                return self.bodyMode == .auto
                    ? (.literal("\"\""), nil)
                    : (.literal("null"), FetchError(kind: .emptyBody, message: "the body is empty"))
            }
            do throws(FetchError) {
                switch try Envelope().content(of: body) {
                case .value(let slice): return (.embedded(slice), nil)
                case .message(let text): return (.message(text), nil)
                case .null, .missing: return (.literal("null"), nil)
                }
            } catch {
                return self.bodyMode == .json
                    ? (.literal("null"), error)
                    : (.textOrBase64(Charset.utf8(body, contentType: contentType) ?? body), nil)
            }
        }
    }

    /// Copies validated JSON in; its CR/LF can only be whitespace between tokens (JSON strings
    /// cannot hold raw control characters), so they become spaces and the record stays one line.
    private mutating func embed(_ slice: JSONSlice) {
        slice.withUnsafeBytes { raw in
            // The validator says when there are none; else memchr, not a per-byte Swift loop.
            let hasLineBreaks =
                slice.mayHoldLineBreaks
                && (raw.baseAddress.map { memchr($0, 0x0A, raw.count) != nil || memchr($0, 0x0D, raw.count) != nil }
                    ?? false)
            if !hasLineBreaks && raw.count >= Self.spliceMinimum {
                self.splices.append((self.json.buffer.count, .json(slice)))
                self.splicedBytes += raw.count
                return
            }
            let start = self.json.buffer.count
            self.json.buffer.append(contentsOf: raw)
            guard hasLineBreaks else {
                return
            }
            for index in start..<self.json.buffer.count
            where self.json.buffer[index] == 0x0A || self.json.buffer[index] == 0x0D {
                self.json.buffer[index] = 0x20
            }
        }
    }

    /// Writes a body as a JSON string of its text, escaped by runs straight from its bytes. Text that
    /// is not UTF-8 is written in base64 when `base64Unless` is set, else as Swift decodes it, each
    /// ill-formed sequence as U+FFFD.
    private mutating func text(_ body: Data, base64Unless: Bool) {
        body.withUnsafeBytes { raw in
            if let literal = JSONBytes.stringLiteral(validatingUTF8: raw) {
                self.append(literal)
            } else if base64Unless {
                self.append(JSONBytes.base64Literal(raw))
                self.json.raw(",\"body_encoding\":\"base64\"")
            } else {
                self.json.string(String(decoding: raw, as: UTF8.self))
            }
        }
    }

    private mutating func base64(_ body: Data) {
        body.withUnsafeBytes { self.append(JSONBytes.base64Literal($0)) }
        self.json.raw(",\"body_encoding\":\"base64\"")
    }

    /// Appends a finished literal, spliced in at drain time when it is large.
    private mutating func append(_ literal: [UInt8]) {
        if literal.count >= Self.spliceMinimum {
            self.splices.append((self.json.buffer.count, .literal(literal)))
            self.splicedBytes += literal.count
        } else {
            self.json.raw(literal)
        }
    }

    private mutating func file(_ saved: BodyFileStore.Saved?) {
        guard let saved else {
            self.json.raw(",\"file\":null,\"sha256\":null")
            return
        }
        self.json.raw(",\"file\":")
        self.json.string(saved.path)
        self.json.raw(",\"sha256\":")
        self.json.string(saved.sha256)
    }
}
