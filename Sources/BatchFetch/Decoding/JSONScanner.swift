/// A validating JSON scanner over raw bytes that finds the value at a key path without building
/// any objects.
///
/// It checks the whole document against RFC 8259 (structure, string escapes, UTF-8, number
/// grammar), iteratively with an explicit stack so hostile nesting cannot overflow the thread's
/// stack, and records the byte range of the first value found at the key path. Strings, which
/// make up most of an API document, are skipped sixteen bytes at a time (SWAR over two words): a
/// run with no quote, backslash, control or non-ASCII byte needs no per-byte work.
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

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let path: [[UInt8]]
    private let maxDepth: Int

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
    /// All state lives in locals so the optimiser keeps it in registers across the hot loop; the
    /// key-path bookkeeping costs one compare per value (`watch`), per key and per closing
    /// bracket (`keyDepth`) and per value end (`captureDepth`), and the rare events are handled
    /// out of the way.
    mutating func scan() throws(Failure) -> Target {
        let base = self.base
        let count = self.count
        var position = self.skipWhitespace(from: 0)

        // The open containers: `depth` of them, the innermost an object when `inObject`. Their
        // kinds are a bit stack (bit i set: level i is an object), spilling past 64 levels.
        var depth = 0
        var inObject = false
        var kinds: UInt64 = 0
        var deepKinds: [Bool] = []

        // Key-path tracking. `matched` components have been found; the object that should hold
        // the next one is at level `keyDepth` (-1 before it opens, -2 once the outcome is known).
        var matched = 0
        var keyDepth = -1
        // The next value is the root or follows a matched key: it must be an object (more
        // components to find) or it is the one to capture.
        var watch = true
        var expectObject = !self.path.isEmpty
        var captureStart = -1
        // The value being captured ends when a value ends at this depth; -1 when none is pending.
        var captureDepth = -1
        var captureKind = JSONValueKind.null
        var result: Target?
        if self.path.isEmpty {
            captureStart = position
            captureDepth = 0
            keyDepth = -2
        }
        // After a key of the innermost object, whose value starts at `valueAt`: one step along
        // the path when that object is the one to search and the key is the next component.
        @inline(__always)
        func follow(_ key: Range<Int>, valueAt start: Int) {
            guard depth - 1 == keyDepth && self.key(key, is: matched) else {
                return
            }
            matched += 1
            watch = true
            if matched == self.path.count {
                captureStart = start
                captureDepth = depth
                keyDepth = -2
            } else {
                expectObject = true
            }
        }

        while true {
            // A value starts at `position` (whitespace already skipped).
            guard position < count else {
                throw Failure(offset: position, reason: "unexpected end of input, expected a value")
            }
            let byte = base[position]
            if watch {
                watch = false
                let kind = Self.kind(startingWith: byte)
                if position == captureStart {
                    captureKind = kind ?? .null
                }
                if expectObject {
                    expectObject = false
                    if byte == UInt8(ascii: "{") {
                        keyDepth = depth
                    } else {
                        result = .notAnObject(component: matched, found: kind ?? .null)
                        keyDepth = -2
                    }
                }
            }
            switch byte {
            case UInt8(ascii: "\""):
                position = try self.string(at: position)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < self.maxDepth else {
                    throw Failure(offset: position, reason: "nesting deeper than \(self.maxDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                if depth < 64 {
                    kinds = isObject ? kinds | (1 << UInt64(depth)) : kinds & ~(1 << UInt64(depth))
                } else {
                    deepKinds.append(isObject)
                }
                depth += 1
                inObject = isObject
                position = self.skipWhitespace(from: position + 1)
                // `{` + 2 is `}` and `[` + 2 is `]`: an empty container is closed by the code after a value.
                if position == count || base[position] != byte &+ 2 {
                    if isObject {
                        let key: Range<Int>
                        (position, key) = try self.member(at: position)
                        follow(key, valueAt: position)
                    }
                    continue
                }
            case UInt8(ascii: "t"):
                guard position + 4 <= count, self.word32(at: position) == Self.trueWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'true')")
                }
                position += 4
            case UInt8(ascii: "f"):
                // The 'f' is matched: compare the other four bytes in one load.
                guard position + 5 <= count, self.word32(at: position + 1) == Self.alseWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'false')")
                }
                position += 5
            case UInt8(ascii: "n"):
                guard position + 4 <= count, self.word32(at: position) == Self.nullWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'null')")
                }
                position += 4
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                position = try self.number(at: position)
            default:
                throw Failure(offset: position, reason: "unexpected \(Self.describe(byte)), expected a value")
            }

            // After a value: a separator, a closing bracket, or the end of the document.
            while true {
                if depth == captureDepth {
                    result = .found(captureStart..<position, captureKind)
                    captureDepth = -1
                }
                guard position < count else {
                    guard depth == 0 else {
                        throw Failure(
                            offset: position,
                            reason: "unexpected end of input inside \(inObject ? "an object" : "an array")")
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
                    if inObject {
                        let key: Range<Int>
                        (position, key) = try self.member(at: position)
                        follow(key, valueAt: position)
                    }
                    break
                }
                guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw Failure(
                        offset: position - 1,
                        reason: "unexpected \(Self.describe(byte)), expected ',' or '\(inObject ? "}" : "]")'")
                }
                if depth - 1 == keyDepth {
                    result = .missing(component: matched)
                    keyDepth = -2
                }
                depth -= 1
                if depth >= 64 {
                    deepKinds.removeLast()
                }
                if depth > 0 {
                    inObject = depth <= 64 ? kinds & (1 << UInt64(depth - 1)) != 0 : deepKinds[depth - 65]
                }
            }
        }
    }

    /// Parses `"key" :` and the whitespace after it.
    /// - Returns: where the value starts, and the key's raw bytes (without the quotes).
    @inline(__always)
    private func member(at start: Int) throws(Failure) -> (next: Int, key: Range<Int>) {
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

    // MARK: - scalars

    /// Skips a string starting at the opening quote. - Returns: the offset after the closing quote.
    ///
    /// Sixteen bytes (two words) per step: most strings in API documents (keys, short values) end
    /// within the first step, so the loop rarely takes a second, hard-to-predict turn. Only a
    /// plain string ending in a quote is handled inline; escapes, UTF-8, errors and the last bytes
    /// of the buffer continue out of line, which keeps the two inlined copies (keys and values)
    /// small.
    @inline(__always)
    private func string(at open: Int) throws(Failure) -> Int {
        // Wrapping arithmetic: offsets are at most `count`, far from overflowing, and the
        // optimiser then keeps a single induction variable.
        let lastPair = self.count &- 16
        var cursor = open &+ 1
        while cursor <= lastPair {
            let first = Self.specialBytes(self.word64(at: cursor))
            let second = Self.specialBytes(self.word64(at: cursor &+ 8))
            if first | second != 0 {
                cursor &+= first != 0 ? first.trailingZeroBitCount &>> 3 : 8 &+ second.trailingZeroBitCount &>> 3
                if self.base[cursor] == UInt8(ascii: "\"") {
                    return cursor &+ 1
                }
                break
            }
            cursor &+= 16
        }
        return try self.stringTail(open: open, at: cursor)
    }

    /// The rest of a string from `start`: escapes, UTF-8 sequences, control characters (rejected)
    /// and the last few bytes of the buffer, where a whole word cannot be loaded.
    @inline(never)
    private func stringTail(open: Int, at start: Int) throws(Failure) -> Int {
        var position = start
        while true {
            while position + 8 <= self.count {
                let special = Self.specialBytes(self.word64(at: position))
                if special != 0 {
                    position += special.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            guard position < self.count else {
                throw Failure(offset: open, reason: "unterminated string")
            }
            let byte = self.base[position]
            switch byte {
            case UInt8(ascii: "\""):
                return position + 1
            case UInt8(ascii: "\\"):
                position = try self.escape(at: position)
            case 0..<0x20:
                throw Failure(
                    offset: position, reason: "unescaped control character \(Self.describe(byte)) in a string")
            case 0x80...:
                position = try self.utf8Sequence(at: position)
            default:
                position += 1
            }
        }
    }

    /// The high bit of each byte of `word` (little-endian) that is a quote, a backslash, a control
    /// character or not ASCII. Only the lowest set bit is exact, which is all the callers use.
    ///
    /// A byte's high bit after `x - 0x01` (x = byte ^ 0x22 or byte ^ 0x5C) is set when x is 0 (the
    /// byte sought) or x > 0x80, and after `byte - 0x20` when byte < 0x20 or byte >= 0xA0; the
    /// false positives all have byte >= 0x80, which `| word` flags anyway, so the usual `& ~x`
    /// masks are not needed. A borrow into the next byte only comes from a flagged byte, so it
    /// can only add flags above the lowest one.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let q = word ^ 0x2222_2222_2222_2222
        let b = word ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((q &- ones) | (b &- ones) | (word &- 0x2020_2020_2020_2020) | word) & 0x8080_8080_8080_8080
    }

    /// Checks the escape at `position` (a backslash). - Returns: the offset after it.
    private func escape(at position: Int) throws(Failure) -> Int {
        guard position + 1 < self.count else {
            throw Failure(offset: position, reason: "unterminated escape sequence")
        }
        switch self.base[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return position + 2
        case UInt8(ascii: "u"):
            guard position + 6 <= self.count,
                (2..<6).allSatisfy({ Self.hexValue(self.base[position + $0]) != nil })
            else {
                throw Failure(offset: position, reason: "invalid \\u escape (expected four hex digits)")
            }
            return position + 6
        default:
            throw Failure(
                offset: position, reason: "invalid escape sequence '\\\(Self.describe(self.base[position + 1]))'")
        }
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    /// - Returns: the offset after it.
    private func utf8Sequence(at position: Int) throws(Failure) -> Int {
        let lead = self.base[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default:
            throw Failure(offset: position, reason: "invalid UTF-8 byte 0x\(String(lead, radix: 16))")
        }
        guard position + length <= self.count else {
            throw Failure(offset: position, reason: "truncated UTF-8 sequence")
        }
        let second = self.base[position + 1]
        guard second >= lower && second <= upper else {
            throw Failure(offset: position, reason: "invalid UTF-8 sequence")
        }
        for i in 2..<length where self.base[position + i] & 0xC0 != 0x80 {
            throw Failure(offset: position, reason: "invalid UTF-8 sequence")
        }
        return position + length
    }

    // The literals as little-endian 32-bit words, each compared in one load instead of byte by byte.
    private static let trueWord: UInt32 = 0x6575_7274  // "true"
    private static let alseWord: UInt32 = 0x6573_6C61  // "alse", after the 'f' of "false"
    private static let nullWord: UInt32 = 0x6C6C_756E  // "null"

    /// Eight bytes at `offset` as a little-endian word; the caller checks `offset + 8 <= count`.
    @inline(__always)
    private func word64(at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(self.base).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Four bytes at `offset` as a little-endian word; the caller checks `offset + 4 <= count`.
    @inline(__always)
    private func word32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: UnsafeRawPointer(self.base).loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Checks a number starting at `start` (a '-' or a digit). - Returns: the offset after it.
    private func number(at start: Int) throws(Failure) -> Int {
        var position = start
        if self.base[position] == UInt8(ascii: "-") {
            position += 1
        }
        guard position < self.count, Self.isDigit(self.base[position]) else {
            throw Failure(offset: start, reason: "invalid number")
        }
        if self.base[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            position = self.skipDigits(from: position)
        }
        if position < self.count && self.base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < self.count, Self.isDigit(self.base[position]) else {
                throw Failure(offset: start, reason: "invalid number (no digits after '.')")
            }
            position = self.skipDigits(from: position)
        }
        if position < self.count && (self.base[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < self.count
                && (self.base[position] == UInt8(ascii: "+") || self.base[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            guard position < self.count, Self.isDigit(self.base[position]) else {
                throw Failure(offset: start, reason: "invalid number (no digits in the exponent)")
            }
            position = self.skipDigits(from: position)
        }
        return position
    }

    @inline(__always)
    private func skipDigits(from start: Int) -> Int {
        var position = start
        while position < self.count && Self.isDigit(self.base[position]) {
            position += 1
        }
        return position
    }

    @inline(__always)
    private func skipWhitespace(from start: Int) -> Int {
        // Minified documents (most API responses) have none: one compare answers that.
        guard start < self.count && self.base[start] <= 0x20 else {
            return start
        }
        return self.skipWhitespaceRun(from: start)
    }

    @inline(never)
    private func skipWhitespaceRun(from start: Int) -> Int {
        var position = start
        while position < self.count {
            switch self.base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return position
            }
        }
        return position
    }

    // MARK: - helpers

    private static func isDigit(_ byte: UInt8) -> Bool {
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
