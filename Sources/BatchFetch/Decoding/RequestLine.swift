import Foundation

/// One request as a line of JSON gives it: `fetch --input-format jsonl`'s object, or a vegeta
/// JSON target.
///
/// batchfetch's own form: `url` (required), `method`, `headers` (an object whose values are a
/// string or an array of strings), at most one of `body` (any JSON value, sent compact),
/// `body_text`, `body_base64` and `body_file`, and `id` and `meta` (any JSON, kept as their raw
/// bytes for the record). vegeta's (its `lib/target.schema.json`): `method` and `url`
/// (required), `body` (base64) and `header` (an object of arrays of strings). A field of neither
/// kind, a value of the wrong type or JSON that is not valid makes ``problem`` say which, as an
/// ``FetchError/Kind/invalidRequest``; `id`, `meta` and `url` are then still read where the
/// JSON is valid, so that the line's record carries them.
///
/// Read on raw bytes with ``JSONScanner``, which validates every value, without building a
/// `Dictionary` or going through `JSONSerialization`: an input of a million lines is read at the
/// rate a URL list is.
package struct RequestLine {
    /// Which fields the line has.
    package enum Format: Sendable {
        /// batchfetch's fields (see ``RequestLine``).
        case batchfetch
        /// vegeta's JSON target.
        case vegeta
    }

    /// The body the line gives.
    package enum Body: Equatable {
        /// Bytes: `body_text`, `body_base64`, or vegeta's `body`.
        case bytes([UInt8])
        /// A JSON value, compact (`body`): sent as `application/json` unless a field says otherwise.
        case json([UInt8])
        /// A file to send as it is read (`body_file`).
        case file(String)
    }

    /// Containers deeper than this make the line invalid, as in ``Envelope``.
    package static let maxDepth = 512

    /// The URL, when the line has one as a string.
    package var url: String?
    package var method: Request.Method?
    /// The header fields, in the line's order; an array value gives one field per element.
    package var headers: [HeaderField] = []
    package var body: Body?
    /// The raw JSON of `id` and of `meta`, as in the line, except that a CR between tokens (the
    /// only place valid JSON can have one) is a space, so a record holding it stays one line.
    package var id: [UInt8]?
    package var meta: [UInt8]?
    /// Why the line is not a request that can be sent; `nil` when it is.
    package var problem: FetchError?

    /// Reads the line's bytes (one JSON object, white space around it allowed).
    package init(parsing bytes: UnsafeRawBufferPointer, format: Format) {
        let scanner = JSONScanner(bytes: bytes, path: [], maxDepth: Self.maxDepth)
        do throws(FetchError) {
            try self.read(scanner, format: format, lenient: false)
            if self.url == nil {
                throw Self.invalid("no 'url' field: each request line needs one")
            }
            if format == .vegeta && self.method == nil {
                throw Self.invalid("no 'method' field: each vegeta target needs one")
            }
        } catch {
            let problem = error
            self = RequestLine()
            // Past any nesting (the scanner's stack is its own, not the thread's), so that an id
            // after a value nested too deeply is still found; what is kept is held to the limit.
            let tolerant = JSONScanner(bytes: bytes, path: [], maxDepth: Int.max)
            try? self.read(tolerant, format: format, lenient: true)
            self.problem = problem
        }
    }

    private init() {}

    /// Walks the object's members. `lenient` (after a problem) takes only `url`, `id` and `meta`.
    private mutating func read(_ scanner: JSONScanner, format: Format, lenient: Bool) throws(FetchError) {
        let base = scanner.base
        var position = scanner.skipWhitespace(from: 0)
        guard position < scanner.count, base[position] == UInt8(ascii: "{") else {
            throw Self.invalid("not a JSON object: a request line starts with '{'")
        }
        position = scanner.skipWhitespace(from: position + 1)
        var seen = Fields()
        if position < scanner.count && base[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                let (start, key) = try Self.json { () throws(JSONScanner.Failure) in try scanner.member(at: position) }
                let end = try Self.json { () throws(JSONScanner.Failure) in try scanner.skipValue(at: start, depth: 1) }
                let field = Field.named(scanner, key)
                if lenient {
                    self.keep(field, scanner: scanner, value: start..<end)
                } else if let field, field.belongs(to: format) {
                    try self.take(field, scanner: scanner, value: start..<end, format: format, seen: &seen)
                } else {
                    let known =
                        format == .vegeta
                        ? "method, url, body, header"
                        : "url, method, headers, body, body_text, body_base64, body_file, id, meta"
                    throw Self.invalid("unknown field '\(scanner.text(key))' (the fields are \(known))")
                }
                position = scanner.skipWhitespace(from: end)
                guard position < scanner.count else {
                    throw Self.invalid("not valid JSON: unexpected end of the line inside the object")
                }
                let byte = base[position]
                position += 1
                if byte == UInt8(ascii: "}") {
                    break
                }
                guard byte == UInt8(ascii: ",") else {
                    throw Self.invalid(
                        "not valid JSON: \(JSONScanner.describe(byte)) at byte \(position - 1), expected ',' or '}'")
                }
                position = scanner.skipWhitespace(from: position)
            }
        }
        position = scanner.skipWhitespace(from: position)
        guard position == scanner.count else {
            throw Self.invalid("text after the request object at byte \(position)")
        }
    }

    /// The fields a line has given so far, to refuse one given twice and a second body.
    private struct Fields {
        /// Bit `field.rawValue` set for each field seen.
        var seen: UInt16 = 0
        var body: Field?
    }

    /// Takes `url`, `id` and `meta` of a line that has a problem, for its record.
    private mutating func keep(_ field: Field?, scanner: JSONScanner, value: Range<Int>) {
        switch field {
        case .url where scanner.base[value.lowerBound] == UInt8(ascii: "\""):
            self.url = scanner.stringText(value)
        case .id where Self.isShallow(scanner, value):
            self.id = scanner.raw(value)
        case .meta where Self.isShallow(scanner, value):
            self.meta = scanner.raw(value)
        default:
            break
        }
    }

    /// Whether `value` nests no deeper than ``maxDepth`` (a record may carry it).
    private static func isShallow(_ scanner: JSONScanner, _ value: Range<Int>) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: scanner.base + value.lowerBound, count: value.count)
        let checked = JSONScanner(bytes: bytes, path: [], maxDepth: Self.maxDepth)
        return (try? checked.skipValue(at: 0, depth: 0)) != nil
    }

    /// Reads the value of `field` into the request.
    private mutating func take(
        _ field: Field, scanner: JSONScanner, value: Range<Int>, format: Format, seen: inout Fields
    ) throws(FetchError) {
        let bit: UInt16 = 1 << field.rawValue
        guard seen.seen & bit == 0 else {
            throw Self.invalid("field '\(field.name)' is given twice")
        }
        seen.seen |= bit
        let name = field.name
        switch field {
        case .url:
            guard scanner.base[value.lowerBound] == UInt8(ascii: "\"") else {
                throw Self.invalid("field 'url' is not a string")
            }
            self.url = scanner.stringText(value)
        case .method:
            self.method = try Self.method(String(decoding: try scanner.string(value, field: name), as: UTF8.self))
        case .headers, .header:
            self.headers = try scanner.headers(value, field: name, arraysOnly: field == .header)
        case .body where format == .vegeta:
            self.body = .bytes(try scanner.base64(value, field: name))
        case .body:
            self.body = .json(scanner.compact(value))
        case .bodyText:
            self.body = .bytes(try scanner.string(value, field: name))
        case .bodyBase64:
            self.body = .bytes(try scanner.base64(value, field: name))
        case .bodyFile:
            let path = String(decoding: try scanner.string(value, field: name), as: UTF8.self)
            guard !path.isEmpty, !path.utf8.contains(0) else {
                throw Self.invalid("field 'body_file' is not a file name")
            }
            self.body = .file(path)
        case .id:
            self.id = scanner.raw(value)
        case .meta:
            self.meta = scanner.raw(value)
        }
        if field.isBody {
            if let earlier = seen.body {
                throw Self.invalid("fields '\(earlier.name)' and '\(name)' both give a body: give one")
            }
            seen.body = field
        }
    }

    private static func method(_ text: String) throws(FetchError) -> Request.Method {
        guard let method = Request.Method(rawValue: text) else {
            throw Self.invalid("field 'method': \(Request.Method.problem(with: text))")
        }
        return method
    }

    /// Runs a scanner step, its failure worded as a line that is not valid JSON.
    private static func json<T>(_ step: () throws(JSONScanner.Failure) -> T) throws(FetchError) -> T {
        do {
            return try step()
        } catch {
            throw Self.invalid("not valid JSON: \(error.reason) at byte \(error.offset)")
        }
    }

    static func invalid(_ message: String) -> FetchError {
        FetchError(kind: .invalidRequest, message: message)
    }
}

extension RequestLine {
    /// The fields of both forms, known by their keys' raw bytes (no `String` per key).
    enum Field: UInt16 {
        case url, method, headers, header, body, bodyText, bodyBase64, bodyFile, id, meta

        /// The key as a line spells it.
        var name: String {
            switch self {
            case .url: "url"
            case .method: "method"
            case .headers: "headers"
            case .header: "header"
            case .body: "body"
            case .bodyText: "body_text"
            case .bodyBase64: "body_base64"
            case .bodyFile: "body_file"
            case .id: "id"
            case .meta: "meta"
            }
        }

        var isBody: Bool {
            switch self {
            case .body, .bodyText, .bodyBase64, .bodyFile: true
            default: false
            }
        }

        /// Whether lines of `format` have the field.
        func belongs(to format: Format) -> Bool {
            switch self {
            case .url, .method, .body: true
            case .header: format == .vegeta
            default: format == .batchfetch
            }
        }

        /// The field the key between `key`'s bounds (without its quotes) names, if any. A key
        /// with escapes is decoded only when it matches no field as it is.
        static func named(_ scanner: JSONScanner, _ key: Range<Int>) -> Field? {
            let raw = UnsafeRawBufferPointer(start: scanner.base + key.lowerBound, count: key.count)
            if let field = Self.named(raw) {
                return field
            }
            guard raw.contains(UInt8(ascii: "\\")) else {
                return nil
            }
            return JSONScanner.unescape(raw.assumingMemoryBound(to: UInt8.self)).withUnsafeBytes { Self.named($0) }
        }

        private static func named(_ raw: UnsafeRawBufferPointer) -> Field? {
            switch raw.count {
            case 2: Self.is(raw, "id") ? .id : nil
            case 3: Self.is(raw, "url") ? .url : nil
            case 4: Self.is(raw, "body") ? .body : Self.is(raw, "meta") ? .meta : nil
            case 6: Self.is(raw, "method") ? .method : Self.is(raw, "header") ? .header : nil
            case 7: Self.is(raw, "headers") ? .headers : nil
            case 9: Self.is(raw, "body_text") ? .bodyText : Self.is(raw, "body_file") ? .bodyFile : nil
            case 11: Self.is(raw, "body_base64") ? .bodyBase64 : nil
            default: nil
            }
        }

        /// Whether `raw` holds `name`'s bytes (of the same length).
        private static func `is`(_ raw: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
            guard let base = raw.baseAddress else {
                return false
            }
            return memcmp(base, name.utf8Start, name.utf8CodeUnitCount) == 0
        }
    }
}
