/// The scanner's scalar values: strings (the bulk of an API document), literals, numbers and
/// whitespace.
extension JSONScanner {
    /// Skips a string starting at the opening quote. - Returns: the offset after the closing quote.
    ///
    /// Sixteen bytes (two words) per step: most strings in API documents (keys, short values) end
    /// within the first step, so the loop rarely takes a second, hard-to-predict turn. Only a
    /// plain string ending in a quote is handled inline; escapes, UTF-8, errors and the last bytes
    /// of the buffer continue out of line, which keeps the two inlined copies (keys and values)
    /// small.
    @inline(__always)
    func string(at open: Int) throws(Failure) -> Int {
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
    func stringTail(open: Int, at start: Int) throws(Failure) -> Int {
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
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let q = word ^ 0x2222_2222_2222_2222
        let b = word ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((q &- ones) | (b &- ones) | (word &- 0x2020_2020_2020_2020) | word) & 0x8080_8080_8080_8080
    }

    /// Checks the escape at `position` (a backslash). - Returns: the offset after it.
    func escape(at position: Int) throws(Failure) -> Int {
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
    func utf8Sequence(at position: Int) throws(Failure) -> Int {
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
    static let trueWord: UInt32 = 0x6575_7274  // "true"
    static let alseWord: UInt32 = 0x6573_6C61  // "alse", after the 'f' of "false"
    static let nullWord: UInt32 = 0x6C6C_756E  // "null"

    /// Eight bytes at `offset` as a little-endian word; the caller checks `offset + 8 <= count`.
    @inline(__always)
    func word64(at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(self.base).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Four bytes at `offset` as a little-endian word; the caller checks `offset + 4 <= count`.
    @inline(__always)
    func word32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: UnsafeRawPointer(self.base).loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Checks a number starting at `start` (a '-' or a digit). - Returns: the offset after it.
    func number(at start: Int) throws(Failure) -> Int {
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
    func skipDigits(from start: Int) -> Int {
        var position = start
        while position < self.count && Self.isDigit(self.base[position]) {
            position += 1
        }
        return position
    }

    @inline(__always)
    func skipWhitespace(from start: Int) -> Int {
        // Minified documents (most API responses) have none: one compare answers that.
        guard start < self.count && self.base[start] <= 0x20 else {
            return start
        }
        return self.skipWhitespaceRun(from: start)
    }

    @inline(never)
    func skipWhitespaceRun(from start: Int) -> Int {
        var position = start
        while position < self.count {
            switch self.base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return position
            }
        }
        return position
    }
}
