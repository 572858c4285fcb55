import BatchFetch
import Foundation

/// Formats fetch results as NDJSON records:
/// `{"index","url","status","ok","attempts","bytes","time_ms","content_type","body","error"}`.
struct RecordWriter {
    /// How bodies go into records.
    enum BodyMode: String, CaseIterable {
        /// Embedded JSON when the body is JSON, else a string.
        case auto
        /// Embedded JSON; a body that is not JSON makes the record fail (`invalidJSON`).
        case json
        /// Always a string (invalid UTF-8 repaired).
        case text
        /// No body (`null`).
        case none
    }

    let bodyMode: BodyMode
    let status: StatusPolicy
    /// When set, only this key path's value is kept (implies JSON).
    let contentPath: Envelope?
    /// The records formatted so far, except the large bodies in ``splices``.
    private(set) var json = JSONBytes()

    /// Embedded values at least this large are not copied into ``json``: ``drain(to:)`` writes
    /// them straight from the response, between the text before and after them, in one `writev`.
    /// Copying a 64 KB body only to write it out again cost about as much as writing it.
    static let spliceMinimum = 16 * 1024
    /// Large values waiting to be written, each with the offset in ``json`` it belongs at.
    private var splices: [(offset: Int, value: JSONSlice)] = []
    private var splicedBytes = 0

    /// Bytes formatted and not yet written out.
    var pendingBytes: Int { self.json.buffer.count + self.splicedBytes }

    init(bodyMode: BodyMode = .auto, status: StatusPolicy = .successful, contentPath: String? = nil) {
        self.bodyMode = bodyMode
        self.status = status
        self.contentPath = contentPath.map { Envelope($0, noResults: .strict) }
        self.json.buffer.reserveCapacity(1 << 17)
    }

    /// Appends one record for `result`, numbered `index`.
    /// - Returns: the error kind when the record is not ok, `nil` when it is.
    mutating func write(_ result: FetchResult, index: Int) -> FetchError.Kind? {
        self.json.raw("{\"index\":")
        self.json.int(index)
        self.json.raw(",\"url\":")
        self.json.string(result.request.url.redactedURL)
        guard case .success(let response) = result.outcome else {
            let error = result.error ?? .cancelled
            self.json.raw(",\"status\":null,\"ok\":false,\"attempts\":")
            self.json.int(result.attempts)
            self.json.raw(",\"bytes\":0,\"time_ms\":null,\"content_type\":null,\"body\":null")
            self.error(error)
            return error.kind
        }
        var failure: FetchError? =
            self.status.accepts(response.status)
            ? nil : FetchError.httpStatus(response.status, snippet: nil)
        self.json.raw(",\"status\":")
        self.json.int(response.status)
        let okOffset = self.json.buffer.count
        self.json.raw(",\"ok\":false")  // patched below once the body is known to be fine
        self.json.raw(",\"attempts\":")
        self.json.int(result.attempts)
        self.json.raw(",\"bytes\":")
        self.json.int(response.body.count)
        self.json.raw(",\"time_ms\":")
        self.json.milliseconds(response.timings.total)
        self.json.raw(",\"content_type\":")
        self.json.string(response.contentType)
        self.json.raw(",\"body\":")
        if let bodyError = self.body(response.body), failure == nil {
            failure = bodyError
        }
        if let failure {
            self.error(failure)
            return failure.kind
        }
        self.json.buffer.replaceSubrange(okOffset..<(okOffset + 11), with: Array(",\"ok\":true".utf8))
        // `true` is a byte shorter than `false`: a body spliced in after it moves up by one.
        if let last = self.splices.indices.last, self.splices[last].offset > okOffset {
            self.splices[last].offset -= 1
        }
        self.json.raw(",\"error\":null}\n")
        return nil
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
        _ splices: ArraySlice<(offset: Int, value: JSONSlice)>, from text: UnsafeRawBufferPointer, after start: Int,
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

    /// Writes the body per the mode. - Returns: why the body makes the record fail, if it does.
    private mutating func body(_ body: Data) -> FetchError? {
        if let envelope = self.contentPath {
            do throws(FetchError) {
                switch try envelope.content(of: body) {
                case .value(let slice): self.embed(slice)
                case .null: self.json.raw("null")
                case .message(let text): self.json.string(text)
                case .missing:
                    self.json.raw("null")
                    return FetchError(kind: .missingKey, message: "no '\(envelope.keyPath)' in the document")
                }
                return nil
            } catch {
                self.json.raw("null")
                return error
            }
        }
        switch self.bodyMode {
        case .none:
            self.json.raw("null")
        case .text:
            self.json.string(String(decoding: body, as: UTF8.self))
        case .auto, .json:
            if body.isEmpty {
                self.json.raw(self.bodyMode == .auto ? "\"\"" : "null")
                return self.bodyMode == .json ? FetchError(kind: .emptyBody, message: "the body is empty") : nil
            }
            do throws(FetchError) {
                switch try Envelope().content(of: body) {
                case .value(let slice): self.embed(slice)
                case .message(let text): self.json.string(text)
                case .null, .missing: self.json.raw("null")
                }
            } catch {
                if self.bodyMode == .json {
                    self.json.raw("null")
                    return error
                }
                self.json.string(String(decoding: body, as: UTF8.self))
            }
        }
        return nil
    }

    /// Copies validated JSON in; its CR/LF can only be whitespace between tokens (JSON strings
    /// cannot hold raw control characters), so they become spaces and the record stays one line.
    private mutating func embed(_ slice: JSONSlice) {
        slice.withUnsafeBytes { raw in
            // memchr, not a per-byte Swift loop: most bodies have no line breaks at all.
            let hasLineBreaks =
                raw.baseAddress.map { memchr($0, 0x0A, raw.count) != nil || memchr($0, 0x0D, raw.count) != nil }
                ?? false
            if !hasLineBreaks && raw.count >= Self.spliceMinimum {
                self.splices.append((self.json.buffer.count, slice))
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

    private mutating func error(_ error: FetchError) {
        self.json.raw(",\"error\":{\"kind\":")
        self.json.string(error.kind.rawValue)
        self.json.raw(",\"message\":")
        self.json.string(error.message)
        self.json.raw("}}\n")
    }
}
