/// A validating JSON scanner over raw bytes that finds the value at a key path without building
/// any objects.
///
/// It checks the whole document against RFC 8259 (structure, string escapes, UTF-8, number
/// grammar), iteratively with an explicit stack so hostile nesting cannot overflow the thread's
/// stack, and records the byte range of the first value found at the key path. `scan()` walks only
/// the objects along the key path; every other value, including the one it captures, is checked
/// by the tighter `skipValue(at:depth:)` (JSONScanner+Skip.swift), which has no key-path state.
/// Strings, which make up most of an API document, are skipped many bytes at a time
/// (JSONScanner+Scalars.swift).
///
/// Threading: a value type used by one thread at a time.
struct JSONScanner {
    /// Why a document is not valid JSON, and where.
    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    /// The outcome of looking for the key path.
    enum Target: Equatable {
        /// The value's byte range (no surrounding whitespace) and its kind.
        case found(Range<Int>, JSONValueKind)
        /// Component `index` of the path is not in its object.
        case missing(component: Int)
        /// The value reached before component `index` is not an object, but this kind.
        case notAnObject(component: Int, found: JSONValueKind)
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    let path: [[UInt8]]
    let maxDepth: Int

    // Immutable after initialisation and never written through.
    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return UnsafePointer(byte)
    }()

    init(bytes: UnsafeRawBufferPointer, path: [[UInt8]], maxDepth: Int) {
        // An empty buffer may have no base address; point at a static byte instead, never read
        // because `count` is 0.
        self.base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONScanner.emptyBase
        self.count = bytes.count
        self.path = path
        self.maxDepth = maxDepth
    }

    /// Validates the whole document and locates the key path.
    ///
    /// The loop here is only ever inside the objects along the path (so every open container is
    /// an object and `depth` is the absolute nesting depth); a value that cannot hold the next
    /// component is handed whole to `skipValue`, which keeps the per-token cost of the bulk of
    /// the document free of key-path bookkeeping.
    mutating func scan() throws(Failure) -> Target {
        let base = self.base
        let count = self.count
        var position = self.skipWhitespace(from: 0)
        // The open objects on the path; all are objects, so no kind stack is needed here.
        var depth = 0
        // `matched` components have been found; the object that should hold the next one is at
        // level `keyDepth` (-1 before it opens, -2 once the outcome is known).
        var matched = 0
        var keyDepth = -1
        // The next value is the root or follows a matched key: it must be an object (more
        // components to find) or it is the one to capture.
        var watch = true
        var result: Target?

        while true {
            // A value starts at `position` (whitespace already skipped).
            guard position < count else {
                throw Failure(offset: position, reason: "unexpected end of input, expected a value")
            }
            let byte = base[position]
            if watch && matched < self.path.count && byte == UInt8(ascii: "{") {
                // The object that should hold the next component: walk its members here.
                watch = false
                guard depth < self.maxDepth else {
                    throw Failure(offset: position, reason: "nesting deeper than \(self.maxDepth) levels")
                }
                keyDepth = depth
                depth += 1
                position = self.skipWhitespace(from: position + 1)
                if position == count || base[position] != UInt8(ascii: "}") {
                    let key: Range<Int>
                    (position, key) = try self.member(at: position)
                    if self.key(key, is: matched) {
                        matched += 1
                        watch = true
                        if matched == self.path.count {
                            keyDepth = -2
                        }
                    }
                    continue
                }
            } else if watch {
                watch = false
                // `nil` only for a byte that starts no value, which `skipValue` rejects.
                let kind = Self.kind(startingWith: byte) ?? .null
                let start = position
                position = try self.skipValue(at: position, depth: depth)
                result =
                    matched < self.path.count
                    ? .notAnObject(component: matched, found: kind) : .found(start..<position, kind)
                keyDepth = -2
            } else {
                position = try self.skipValue(at: position, depth: depth)
            }

            // After a value: a separator, a closing brace, or the end of the document.
            while true {
                guard position < count else {
                    guard depth == 0 else {
                        throw Failure(offset: position, reason: "unexpected end of input inside an object")
                    }
                    return result ?? .missing(component: matched)
                }
                var byte = base[position]
                if byte <= 0x20 {
                    position = self.skipWhitespace(from: position)
                    guard position < count else {
                        continue
                    }
                    byte = base[position]
                }
                guard depth > 0 else {
                    throw Failure(offset: position, reason: "unexpected \(Self.describe(byte)) after the document")
                }
                position += 1
                if byte == UInt8(ascii: ",") {
                    position = self.skipWhitespace(from: position)
                    let key: Range<Int>
                    (position, key) = try self.member(at: position)
                    // One step along the path when this object is the one to search and the key
                    // is the next component.
                    if depth - 1 == keyDepth && self.key(key, is: matched) {
                        matched += 1
                        watch = true
                        if matched == self.path.count {
                            keyDepth = -2
                        }
                    }
                    break
                }
                guard byte == UInt8(ascii: "}") else {
                    throw Failure(
                        offset: position - 1, reason: "unexpected \(Self.describe(byte)), expected ',' or '}'")
                }
                if depth - 1 == keyDepth {
                    result = .missing(component: matched)
                    keyDepth = -2
                }
                depth -= 1
            }
        }
    }

    /// Parses `"key" :` and the whitespace after it.
    /// - Returns: where the value starts, and the key's raw bytes (without the quotes).
    @inline(__always)
    func member(at start: Int) throws(Failure) -> (next: Int, key: Range<Int>) {
        guard start < self.count, self.base[start] == UInt8(ascii: "\"") else {
            throw Failure(offset: start, reason: "expected a string key in an object")
        }
        let end = try self.string(at: start)
        var position = end
        // Minified documents have no whitespace before the colon: one compare answers that.
        if position >= self.count || self.base[position] != UInt8(ascii: ":") {
            position = self.skipWhitespace(from: position)
            guard position < self.count, self.base[position] == UInt8(ascii: ":") else {
                throw Failure(offset: position, reason: "expected ':' after an object key")
            }
        }
        return (self.skipWhitespace(from: position + 1), start + 1..<end - 1)
    }

    /// Whether the raw key bytes in `key` decode to path component `index`.
    private func key(_ key: Range<Int>, is index: Int) -> Bool {
        let raw = UnsafeBufferPointer(start: self.base + key.lowerBound, count: key.count)
        let component = self.path[index]
        // Every escape starts with a backslash, and a valid string has no other.
        if raw.contains(UInt8(ascii: "\\")) {
            return Self.unescape(raw) == component
        }
        return raw.elementsEqual(component)
    }

    // MARK: - helpers

    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    static func kind(startingWith byte: UInt8) -> JSONValueKind? {
        switch byte {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        default: nil
        }
    }
}

/// The kind of a JSON value.
public enum JSONValueKind: String, Sendable, Hashable {
    case object, array, string, number, bool, null
}
