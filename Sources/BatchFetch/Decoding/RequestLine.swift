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
                let name = scanner.text(key)
                if lenient {
                    self.keep(name, scanner: scanner, value: start..<end)
                } else {
                    try self.take(name, scanner: scanner, value: start..<end, format: format, seen: &seen)
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
        var names: Set<String> = []
        var body: String?
    }

    /// Takes `url`, `id` and `meta` of a line that has a problem, for its record.
    private mutating func keep(_ name: String, scanner: JSONScanner, value: Range<Int>) {
        switch name {
        case "url" where scanner.base[value.lowerBound] == UInt8(ascii: "\""):
            self.url = String(decoding: scanner.stringContent(value), as: UTF8.self)
        case "id" where Self.isShallow(scanner, value):
            self.id = scanner.raw(value)
        case "meta" where Self.isShallow(scanner, value):
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

    /// Reads the value of field `name` into the request.
    private mutating func take(
        _ name: String, scanner: JSONScanner, value: Range<Int>, format: Format, seen: inout Fields
    ) throws(FetchError) {
        guard seen.names.insert(name).inserted else {
            throw Self.invalid("field '\(name)' is given twice")
        }
        let isBody: Bool
        switch (format, name) {
        case (_, "url"):
            self.url = String(decoding: try scanner.string(value, field: name), as: UTF8.self)
            isBody = false
        case (_, "method"):
            self.method = try Self.method(String(decoding: try scanner.string(value, field: name), as: UTF8.self))
            isBody = false
        case (.batchfetch, "headers"), (.vegeta, "header"):
            self.headers = try scanner.headers(value, field: name, arraysOnly: format == .vegeta)
            isBody = false
        case (.batchfetch, "body"):
            self.body = .json(scanner.compact(value))
            isBody = true
        case (.batchfetch, "body_text"):
            self.body = .bytes(try scanner.string(value, field: name))
            isBody = true
        case (.batchfetch, "body_base64"), (.vegeta, "body"):
            self.body = .bytes(try scanner.base64(value, field: name))
            isBody = true
        case (.batchfetch, "body_file"):
            let path = String(decoding: try scanner.string(value, field: name), as: UTF8.self)
            guard !path.isEmpty, !path.utf8.contains(0) else {
                throw Self.invalid("field 'body_file' is not a file name")
            }
            self.body = .file(path)
            isBody = true
        case (.batchfetch, "id"):
            self.id = scanner.raw(value)
            isBody = false
        case (.batchfetch, "meta"):
            self.meta = scanner.raw(value)
            isBody = false
        default:
            let known =
                format == .vegeta
                ? "method, url, body, header"
                : "url, method, headers, body, body_text, body_base64, body_file, id, meta"
            throw Self.invalid("unknown field '\(name)' (the fields are \(known))")
        }
        if isBody {
            if let earlier = seen.body {
                throw Self.invalid("fields '\(earlier)' and '\(name)' both give a body: give one")
            }
            seen.body = name
        }
    }

    private static func method(_ text: String) throws(FetchError) -> Request.Method {
        guard let method = Request.Method(rawValue: text) else {
            let names = Request.Method.allCases.map(\.rawValue).joined(separator: ", ")
            throw Self.invalid("field 'method': '\(text)' is not one of \(names) (methods are case-sensitive)")
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
