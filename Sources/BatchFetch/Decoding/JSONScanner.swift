/// A validating JSON scanner over raw bytes that finds the value at a key path without building
/// any objects.
///
/// It checks the whole document against RFC 8259 (structure, string escapes, UTF-8, number
/// grammar), iteratively with an explicit stack so hostile nesting cannot overflow the thread's
/// stack, and records the byte range of the first value found at the key path. Strings, which
/// make up most of an API document, are skipped eight bytes at a time (SWAR): a word with no
/// quote, backslash, control or non-ASCII byte needs no per-byte work.
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
    private var position = 0

    // Key-path tracking: see `scan()`.
    private var matched = 0
    private var onPathDepth = -1
    private var expectOnPathObject = false
    private var frozen = false
    private var captureStart = -1
    private var captureDepth = -1
    private var captureKind = JSONValueKind.null
    private var result: Target?

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
        // With a key path, the document itself must be an object: the first value is on the path.
        self.expectOnPathObject = !path.isEmpty
    }

    /// Validates the whole document and locates the key path.
    mutating func scan() throws(Failure) -> Target {
        // `stack` holds one byte per open container: `{` or `[`. Depth d of an object is its index.
        var stack: [UInt8] = []
        stack.reserveCapacity(16)
        self.skipWhitespace()
        if self.path.isEmpty {
            self.captureStart = self.position
            self.captureDepth = 0
            self.frozen = true
        }
        var expectingValue = true
        while true {
            if expectingValue {
                let start = self.position
                guard self.position < self.count else {
                    throw Failure(offset: self.position, reason: "unexpected end of input, expected a value")
                }
                let byte = self.base[self.position]
                let kind = Self.kind(startingWith: byte)
                if self.captureStart == start {
                    self.captureKind = kind ?? .null
                }
                if self.expectOnPathObject {
                    self.expectOnPathObject = false
                    if kind != .object {
                        self.result = .notAnObject(component: self.matched, found: kind ?? .null)
                        self.frozen = true
                    }
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < self.maxDepth else {
                        throw Failure(offset: self.position, reason: "nesting deeper than \(self.maxDepth) levels")
                    }
                    stack.append(byte)
                    self.position += 1
                    if byte == UInt8(ascii: "{") && !self.frozen && stack.count - 1 == self.matched
                        && (self.onPathDepth == stack.count - 2 || stack.count == 1)
                    {
                        self.onPathDepth = stack.count - 1
                    }
                    self.skipWhitespace()
                    let close: UInt8 = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if self.position < self.count && self.base[self.position] == close {
                        self.position += 1
                        self.closeContainer(&stack)
                        expectingValue = false
                    } else if byte == UInt8(ascii: "{") {
                        try self.member(depth: stack.count - 1)
                    }
                    if expectingValue {
                        continue
                    }
                case UInt8(ascii: "\""):
                    _ = try self.string()
                case UInt8(ascii: "t"):
                    try self.literal("true")
                case UInt8(ascii: "f"):
                    try self.literal("false")
                case UInt8(ascii: "n"):
                    try self.literal("null")
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    try self.number()
                default:
                    throw Failure(offset: self.position, reason: "unexpected \(Self.describe(byte)), expected a value")
                }
                expectingValue = false
                self.valueEnded(depth: stack.count)
            }
            // After a value: a separator, a closing bracket, or the end of the document.
            self.skipWhitespace()
            guard let top = stack.last else {
                guard self.position == self.count else {
                    throw Failure(
                        offset: self.position,
                        reason: "unexpected \(Self.describe(self.base[self.position])) after the document")
                }
                return self.result ?? .missing(component: self.matched)
            }
            guard self.position < self.count else {
                throw Failure(
                    offset: self.position,
                    reason: "unexpected end of input inside \(top == UInt8(ascii: "{") ? "an object" : "an array")")
            }
            let byte = self.base[self.position]
            self.position += 1
            if byte == UInt8(ascii: ",") {
                self.skipWhitespace()
                if top == UInt8(ascii: "{") {
                    try self.member(depth: stack.count - 1)
                }
                expectingValue = true
            } else if (byte == UInt8(ascii: "}") && top == UInt8(ascii: "{"))
                || (byte == UInt8(ascii: "]") && top == UInt8(ascii: "["))
            {
                self.closeContainer(&stack)
            } else {
                throw Failure(
                    offset: self.position - 1,
                    reason:
                        "unexpected \(Self.describe(byte)), expected ',' or '\(top == UInt8(ascii: "{") ? "}" : "]")'")
            }
        }
    }

    /// Parses `"key" :` in an object at `depth`, and checks the key against the path.
    private mutating func member(depth: Int) throws(Failure) {
        guard self.position < self.count, self.base[self.position] == UInt8(ascii: "\"") else {
            throw Failure(offset: self.position, reason: "expected a string key in an object")
        }
        let keyStart = self.position + 1
        let hasEscapes = try self.string()
        let keyEnd = self.position - 1
        self.skipWhitespace()
        guard self.position < self.count, self.base[self.position] == UInt8(ascii: ":") else {
            throw Failure(offset: self.position, reason: "expected ':' after an object key")
        }
        self.position += 1
        self.skipWhitespace()
        guard !self.frozen, depth == self.onPathDepth, depth == self.matched else {
            return
        }
        let component = self.path[self.matched]
        let equal: Bool
        if hasEscapes {
            equal =
                Self.unescape(UnsafeBufferPointer(start: self.base + keyStart, count: keyEnd - keyStart)) == component
        } else {
            equal = component.withUnsafeBufferPointer { wanted in
                wanted.count == keyEnd - keyStart && memcmpEqual(wanted.baseAddress, self.base + keyStart, wanted.count)
            }
        }
        guard equal else {
            return
        }
        self.matched += 1
        if self.matched == self.path.count {
            self.captureStart = self.position
            self.captureDepth = depth + 1
            self.frozen = true
        } else {
            self.expectOnPathObject = true
        }
    }

    private mutating func closeContainer(_ stack: inout [UInt8]) {
        let depth = stack.count - 1
        stack.removeLast()
        if depth == self.onPathDepth && !self.frozen {
            // The object that should hold the next path component closed without it.
            self.result = .missing(component: self.matched)
            self.frozen = true
        }
        self.valueEnded(depth: stack.count)
    }

    private mutating func valueEnded(depth: Int) {
        if self.captureStart >= 0 && self.result == nil && depth == self.captureDepth {
            self.result = .found(self.captureStart..<self.position, self.captureKind)
        }
    }

    // MARK: - scalars

    /// Skips a string starting at the opening quote. - Returns: whether it contains escapes.
    private mutating func string() throws(Failure) -> Bool {
        let open = self.position
        self.position += 1
        var escaped = false
        let quotes: UInt64 = 0x2222_2222_2222_2222
        let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(self.base)
        let wordEnd = self.count - 8
        while true {
            // Locals, not properties, in the hot loop: the optimiser keeps them in registers.
            var cursor = self.position
            while cursor <= wordEnd {
                let word = raw.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)
                let q = word ^ quotes
                let b = word ^ backslashes
                let special = ((q &- ones) & ~q) | ((b &- ones) & ~b) | ((word &- 0x2020_2020_2020_2020) & ~word) | word
                if special & highs != 0 {
                    // Skip the plain bytes before the first special one.
                    cursor += (special & highs).trailingZeroBitCount >> 3
                    break
                }
                cursor += 8
            }
            self.position = cursor
            guard self.position < self.count else {
                throw Failure(offset: open, reason: "unterminated string")
            }
            let byte = self.base[self.position]
            switch byte {
            case UInt8(ascii: "\""):
                self.position += 1
                return escaped
            case UInt8(ascii: "\\"):
                escaped = true
                try self.escape()
            case 0..<0x20:
                throw Failure(
                    offset: self.position, reason: "unescaped control character \(Self.describe(byte)) in a string")
            case 0x80...:
                try self.utf8Sequence()
            default:
                self.position += 1
            }
        }
    }

    private mutating func escape() throws(Failure) {
        guard self.position + 1 < self.count else {
            throw Failure(offset: self.position, reason: "unterminated escape sequence")
        }
        switch self.base[self.position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            self.position += 2
        case UInt8(ascii: "u"):
            guard self.position + 6 <= self.count,
                (2..<6).allSatisfy({ Self.hexValue(self.base[self.position + $0]) != nil })
            else {
                throw Failure(offset: self.position, reason: "invalid \\u escape (expected four hex digits)")
            }
            self.position += 6
        default:
            throw Failure(
                offset: self.position,
                reason: "invalid escape sequence '\\\(Self.describe(self.base[self.position + 1]))'")
        }
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    private mutating func utf8Sequence() throws(Failure) {
        let lead = self.base[self.position]
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
            throw Failure(offset: self.position, reason: "invalid UTF-8 byte 0x\(String(lead, radix: 16))")
        }
        guard self.position + length <= self.count else {
            throw Failure(offset: self.position, reason: "truncated UTF-8 sequence")
        }
        let second = self.base[self.position + 1]
        guard second >= lower && second <= upper else {
            throw Failure(offset: self.position, reason: "invalid UTF-8 sequence")
        }
        for i in 2..<length where self.base[self.position + i] & 0xC0 != 0x80 {
            throw Failure(offset: self.position, reason: "invalid UTF-8 sequence")
        }
        self.position += length
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard self.position + length <= self.count, memcmpEqual(word.utf8Start, self.base + self.position, length)
        else {
            throw Failure(offset: self.position, reason: "invalid literal (expected '\(word)')")
        }
        self.position += length
    }

    private mutating func number() throws(Failure) {
        let start = self.position
        if self.base[self.position] == UInt8(ascii: "-") {
            self.position += 1
        }
        guard self.position < self.count, Self.isDigit(self.base[self.position]) else {
            throw Failure(offset: start, reason: "invalid number")
        }
        if self.base[self.position] == UInt8(ascii: "0") {
            self.position += 1
        } else {
            self.skipDigits()
        }
        if self.position < self.count && self.base[self.position] == UInt8(ascii: ".") {
            self.position += 1
            guard self.position < self.count, Self.isDigit(self.base[self.position]) else {
                throw Failure(offset: start, reason: "invalid number (no digits after '.')")
            }
            self.skipDigits()
        }
        if self.position < self.count && (self.base[self.position] | 0x20) == UInt8(ascii: "e") {
            self.position += 1
            if self.position < self.count
                && (self.base[self.position] == UInt8(ascii: "+") || self.base[self.position] == UInt8(ascii: "-"))
            {
                self.position += 1
            }
            guard self.position < self.count, Self.isDigit(self.base[self.position]) else {
                throw Failure(offset: start, reason: "invalid number (no digits in the exponent)")
            }
            self.skipDigits()
        }
    }

    private mutating func skipDigits() {
        while self.position < self.count && Self.isDigit(self.base[self.position]) {
            self.position += 1
        }
    }

    private mutating func skipWhitespace() {
        while self.position < self.count {
            switch self.base[self.position] {
            case 0x20, 0x0A, 0x0D, 0x09: self.position += 1
            default: return
            }
        }
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

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        default: "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// Decodes the content of an already validated JSON string (without its quotes) to UTF-8.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < raw.count else {
                out.append(byte)
                i += 1
                continue
            }
            let code = raw[i + 1]
            i += 2
            switch code {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = Self.hex4(raw, at: i)
                i += 4
                // A high surrogate followed by an escaped low one forms one scalar.
                if (0xD800...0xDBFF).contains(scalar), i + 6 <= raw.count, raw[i] == UInt8(ascii: "\\"),
                    raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = Self.hex4(raw, at: i + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: String(character).utf8)
            default: out.append(code)
            }
        }
        return out
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
        guard index + 4 <= raw.count else {
            return 0xFFFD
        }
        var value: UInt32 = 0
        for k in 0..<4 {
            value = value << 4 | (Self.hexValue(raw[index + k]) ?? 0)
        }
        return value
    }
}

/// The kind of a JSON value.
public enum JSONValueKind: String, Sendable, Hashable {
    case object, array, string, number, bool, null
}

private func memcmpEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    guard let a else {
        return count == 0
    }
    for i in 0..<count where a[i] != b[i] {
        return false
    }
    return true
}
