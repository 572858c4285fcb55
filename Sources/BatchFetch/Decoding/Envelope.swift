import Foundation

/// The content of a JSON API envelope, found by a key path chosen at run time: `"drinks"` in `{"drinks":[…]}`,
/// `"feed.results"` for nested envelopes, `""` for the whole document.
///
/// Finding the content validates the whole document and slices the value out as a byte range,
/// without building objects (see `JSONScanner`); typed decoding then runs only on that slice.
/// A missing key, `null`, and a "no results" message string are told apart (``Content``), and
/// ``NoResultsPolicy`` says which of them mean an empty list.
public struct Envelope: Sendable, Hashable {
    /// The dot-separated key path; `""` is the whole document.
    public let keyPath: String
    /// How `null`, message strings and a missing key map when a list is asked for.
    public var noResults: NoResultsPolicy
    /// Nesting deeper than this is rejected as invalid JSON (guards against hostile input).
    public var maxDepth: Int
    private let components: [[UInt8]]

    /// Creates an envelope for `keyPath`.
    public init(_ keyPath: String = "", noResults: NoResultsPolicy = .emptyList, maxDepth: Int = 512) {
        self.keyPath = keyPath
        self.noResults = noResults
        self.maxDepth = maxDepth
        self.components =
            keyPath.isEmpty
            ? [] : keyPath.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
    }

    /// What a key path holds in one document.
    public enum Content: Sendable {
        /// A value other than `null` or a string where a list or object is expected.
        case value(JSONSlice)
        /// `null`, as TheCocktailDB sends when nothing matches (`{"drinks":null}`).
        case null
        /// A string, as TheCocktailDB sends on some filters (`{"drinks":"None Found"}`).
        case message(String)
        /// The key path is not in the document.
        case missing
    }

    /// Validates `body` and finds the key path's value.
    /// - Throws: ``FetchError/Kind/emptyBody``, ``FetchError/Kind/invalidJSON`` (with the offset and
    ///   a snippet), or ``FetchError/Kind/unexpectedShape`` when a parent on the path is not an object.
    public func content(of body: Data) throws(FetchError) -> Content {
        // The whole document: JSONValidator first where it is faster than the scanner. The scanner
        // still takes what it rejects (for the error's offset and reason), strings (for the
        // message's text) and null, so each outcome is what the scanner alone gives.
        if self.components.isEmpty && JSONValidator.outrunsTheScanner {
            let whole = body.withUnsafeBytes { raw in JSONValidator.value(in: raw, maxDepth: self.maxDepth) }
            if let whole, whole.kind != .string, whole.kind != .null {
                return .value(
                    JSONSlice(
                        body: body, range: whole.range, kind: whole.kind, mayHoldLineBreaks: whole.mayHoldLineBreaks))
            }
        }
        let outcome: Result<JSONScanner.Target, JSONScanner.Failure> = body.withUnsafeBytes { raw in
            if raw.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                return .failure(JSONScanner.Failure(offset: -1, reason: "empty"))
            }
            var scanner = JSONScanner(bytes: raw, path: self.components, maxDepth: self.maxDepth)
            do throws(JSONScanner.Failure) {
                return .success(try scanner.scan())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .failure(let failure) where failure.offset < 0:
            throw FetchError(kind: .emptyBody, message: "the body is empty where a JSON document was expected")
        case .failure(let failure):
            throw FetchError(
                kind: .invalidJSON,
                message: "invalid JSON at byte \(failure.offset): \(failure.reason)",
                snippet: Snippet.of(body, around: failure.offset)
            )
        case .success(.found(let range, let kind)):
            switch kind {
            case .null:
                return .null
            case .string:
                let text = body.withUnsafeBytes { raw in
                    let inner = UnsafeBufferPointer(
                        start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: range.lowerBound + 1),
                        count: range.count - 2)
                    return String(decoding: JSONScanner.unescape(inner), as: UTF8.self)
                }
                return .message(text)
            default:
                return .value(JSONSlice(body: body, range: range, kind: kind))
            }
        case .success(.missing):
            return .missing
        case .success(.notAnObject(let component, let found)):
            let parent = component == 0 ? "the document" : "'\(self.prefix(component))'"
            throw FetchError(
                kind: .unexpectedShape,
                message:
                    "\(parent) is \(found.withArticle), not an object, so it has no key '\(self.componentName(component))'",
                snippet: Snippet.of(body, around: 0)
            )
        }
    }

    /// Finds a list at the key path, applying ``noResults``.
    /// - Returns: the array's slice, or `nil` when the envelope says "no results".
    public func list(in body: Data) throws(FetchError) -> JSONSlice? {
        switch try self.content(of: body) {
        case .value(let slice) where slice.kind == .array:
            return slice
        case .value(let slice):
            throw FetchError(
                kind: .unexpectedShape,
                message: "expected a list at '\(self.keyPath)', found \(slice.kind.withArticle)",
                snippet: Snippet.of(body, around: slice.range.lowerBound)
            )
        case .null where self.noResults.nullIsEmpty:
            return nil
        case .null:
            throw FetchError(kind: .unexpectedShape, message: "expected a list at '\(self.keyPath)', found null")
        case .message(let text) where self.noResults.isNoResults(text):
            return nil
        case .message(let text):
            throw FetchError(
                kind: .unexpectedShape,
                message: "expected a list at '\(self.keyPath)', found the string \"\(text.prefix(80))\"")
        case .missing where self.noResults.missingIsEmpty:
            return nil
        case .missing:
            throw FetchError(
                kind: .missingKey, message: "no '\(self.keyPath)' in the document",
                snippet: Snippet.of(body, around: 0))
        }
    }

    /// Decodes the value at the key path as `T`.
    /// - Throws: the errors of ``content(of:)``, ``FetchError/Kind/missingKey``, or
    ///   ``FetchError/Kind/decodingFailed`` naming the coding path that did not match.
    public func decode<T: Decodable>(_ type: T.Type, from body: Data, using decoder: JSONDecoder = Envelope.decoder)
        throws(FetchError) -> T
    {
        switch try self.content(of: body) {
        case .value(let slice):
            return try slice.decode(type, using: decoder)
        case .missing:
            throw FetchError(
                kind: .missingKey, message: "no '\(self.keyPath)' in the document", snippet: Snippet.of(body, around: 0)
            )
        case .null, .message:
            // Let the model decide whether null or a string is acceptable (e.g. an Optional).
            let range = self.components.isEmpty ? 0..<body.count : try self.rawRange(in: body)
            return try JSONSlice(body: body, range: range, kind: .null).decode(type, using: decoder)
        }
    }

    /// Decodes a list at the key path, each element as `T`; "no results" gives `[]`.
    public func decodeList<T: Decodable>(
        _ element: T.Type, from body: Data, using decoder: JSONDecoder = Envelope.decoder
    ) throws(FetchError) -> [T] {
        guard let slice = try self.list(in: body) else {
            return []
        }
        return try slice.decode([T].self, using: decoder)
    }

    /// The shared decoder used when none is given (JSONDecoder is thread-safe for decoding).
    public static let decoder = JSONDecoder()

    private func rawRange(in body: Data) throws(FetchError) -> Range<Int> {
        let target: JSONScanner.Target? = body.withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw, path: self.components, maxDepth: self.maxDepth)
            return try? scanner.scan()
        }
        guard case .found(let range, _) = target else {
            throw FetchError(kind: .missingKey, message: "no '\(self.keyPath)' in the document")
        }
        return range
    }

    private func prefix(_ count: Int) -> String {
        self.components.prefix(count).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }

    private func componentName(_ index: Int) -> String {
        String(decoding: self.components[index], as: UTF8.self)
    }
}

/// Which envelope contents mean "nothing found" when a list is expected.
public struct NoResultsPolicy: Sendable, Hashable {
    /// `null` means no results.
    public var nullIsEmpty: Bool
    /// Strings that mean no results, compared case-insensitively after trimming.
    public var messages: Set<String>
    /// A missing key means no results.
    public var missingIsEmpty: Bool

    /// Creates a policy.
    public init(
        nullIsEmpty: Bool = true, messages: Set<String> = NoResultsPolicy.knownMessages, missingIsEmpty: Bool = false
    ) {
        self.nullIsEmpty = nullIsEmpty
        self.messages = Set(messages.map { $0.lowercased() })
        self.missingIsEmpty = missingIsEmpty
    }

    /// The "nothing found" strings TheCocktailDB and similar APIs send.
    public static let knownMessages: Set<String> = [
        "none found", "no data found", "no results", "not found", "no drinks found",
    ]

    /// `null` and the known messages are empty lists; a missing key is an error.
    public static let emptyList = NoResultsPolicy()

    /// Only a real list is a list.
    public static let strict = NoResultsPolicy(nullIsEmpty: false, messages: [], missingIsEmpty: false)

    func isNoResults(_ text: String) -> Bool {
        self.messages.contains(text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
    }
}

extension JSONValueKind {
    var withArticle: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// Decodes the value at `keyPath` of a JSON document as `T` (see ``Envelope``).
public func decode<T: Decodable>(_ type: T.Type, from body: Data, at keyPath: String) throws(FetchError) -> T {
    try Envelope(keyPath).decode(type, from: body)
}
