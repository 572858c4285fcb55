import Foundation

/// One scalar field of a flat JSON object, as byte offsets into the validated document.
package struct FlatField {
    /// What the value is.
    package enum Kind {
        /// A string; ``FlatField/value`` is its content, without the quotes.
        case string
        /// `null`.
        case null
        /// A number, `true` or `false`; ``FlatField/value`` is its text.
        case literal
    }

    /// The key's content, without the quotes.
    package var key: Range<Int>
    /// Whether the key holds an escape (`\`).
    package var keyEscaped: Bool
    /// The value's content: a string's bytes between its quotes, or a literal's text.
    package var value: Range<Int>
    /// Whether the value (a string) holds an escape (`\`), so its bytes are not its text.
    package var valueEscaped: Bool
    /// What the value is.
    package var kind: Kind

    /// Whether the value is `null` (a test without `Equatable`'s generic `==` across modules).
    @inlinable
    package var isNull: Bool {
        if case .null = self.kind {
            return true
        }
        return false
    }

    @inlinable
    package init(key: Range<Int>, keyEscaped: Bool, value: Range<Int>, valueEscaped: Bool, kind: Kind) {
        self.key = key
        self.keyEscaped = keyEscaped
        self.value = value
        self.valueEscaped = valueEscaped
        self.kind = kind
    }
}

/// Walks an array of flat objects (``FlatJSON``'s shape) in already validated JSON bytes, field
/// by field, without building a `String` or a `Dictionary`: for readers that turn the bytes
/// straight into other bytes (a crawl re-encodes ~50 fields per drink record).
///
/// The bytes must be a value the scanner validated: escapes and UTF-8 are then well formed, and
/// a string ends at the first quote that no backslash escapes. Shapes other than flat objects
/// (nested objects or arrays as values) throw ``FetchError/Kind/unexpectedShape``.
package struct FlatScanner {
    package let bytes: UnsafeRawBufferPointer
    @usableFromInline var position = 0

    // The stepping methods are inlinable: a drink record is ~50 fields, and a call per step (from
    // CocktailDB, another module) cost more than the step.

    /// A scanner at the start of `bytes`.
    @inlinable
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The offset of the next byte to read.
    package var offset: Int { self.position }

    /// Steps into the array; `false` when it is empty (`[]`).
    @inlinable
    package mutating func openArray() throws(FetchError) -> Bool {
        try self.open(UInt8(ascii: "["), closing: UInt8(ascii: "]"))
    }

    /// Steps into the next object; `false` when it is empty (`{}`).
    @inlinable
    package mutating func openObject() throws(FetchError) -> Bool {
        try self.open(UInt8(ascii: "{"), closing: UInt8(ascii: "}"))
    }

    /// After an object: `true` when another follows (its `,` read), `false` at the array's end.
    @inlinable
    package mutating func nextObject() throws(FetchError) -> Bool {
        try self.separator(closing: UInt8(ascii: "]"), "between objects")
    }

    /// After a field: `true` when another follows (its `,` read), `false` at the object's end.
    @inlinable
    package mutating func nextField() throws(FetchError) -> Bool {
        try self.separator(closing: UInt8(ascii: "}"), "in an object")
    }

    /// Reads `"key": value` at the current position.
    @inlinable
    package mutating func field() throws(FetchError) -> FlatField {
        self.skipWhitespace()
        let (key, keyEscaped) = try self.string()
        self.skipWhitespace()
        try self.expect(UInt8(ascii: ":"))
        self.skipWhitespace()
        switch self.peek() {
        case UInt8(ascii: "\""):
            let (value, escaped) = try self.string()
            return FlatField(key: key, keyEscaped: keyEscaped, value: value, valueEscaped: escaped, kind: .string)
        case UInt8(ascii: "n"):
            let start = self.position
            self.position += 4
            return FlatField(
                key: key, keyEscaped: keyEscaped, value: start..<self.position, valueEscaped: false, kind: .null)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            throw self.shape("field '\(self.text(key, escaped: keyEscaped))' is not a scalar")
        default:
            let start = self.position
            while let byte = self.peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), !Self.isSpace(byte) {
                self.position += 1
            }
            return FlatField(
                key: key, keyEscaped: keyEscaped, value: start..<self.position, valueEscaped: false, kind: .literal)
        }
    }

    /// A string's text: its bytes, or with `escaped` its unescaped bytes.
    package func text(_ range: Range<Int>, escaped: Bool) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: self.bytes[range])
        guard escaped else {
            return String(decoding: raw, as: UTF8.self)
        }
        return String(decoding: JSONScanner.unescape(raw.assumingMemoryBound(to: UInt8.self)), as: UTF8.self)
    }

    /// Appends a string's decoded content (escapes resolved) to `out`.
    package func unescape(_ range: Range<Int>, into out: inout [UInt8]) {
        JSONScanner.unescape(
            UnsafeRawBufferPointer(rebasing: self.bytes[range]).assumingMemoryBound(to: UInt8.self), into: &out)
    }

    /// A string at the current position: the range of its content and whether it has escapes.
    @inlinable
    mutating func string() throws(FetchError) -> (Range<Int>, Bool) {
        try self.expect(UInt8(ascii: "\""))
        let start = self.position
        let (end, escaped) = Self.stringEnd(in: self.bytes, from: start)
        self.position = end + 1
        return (start..<end, escaped)
    }

    /// Where the string whose content starts at `start` ends (the offset of its closing quote, or
    /// the end of `bytes`), and whether it holds an escape.
    ///
    /// Validated JSON: the string ends at the first quote that no backslash escapes.
    @inlinable
    package static func stringEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> (end: Int, escaped: Bool) {
        var position = start
        var escaped = false
        while true {
            position = Self.special(in: bytes, from: position, checking: false)
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\\") else {
                return (min(position, bytes.count), escaped)
            }
            escaped = true
            position += 2
        }
    }

    /// The offset of the first quote or backslash at or after `position` (with `checking`, also
    /// of the first control character or byte that is not ASCII, as the scanner flags them), or
    /// the end of `bytes`. Eight bytes at a time (SWAR: a byte's high bit is set when it is one
    /// sought; false flags only sit above a real one, so the lowest flag is real).
    @inlinable @inline(__always)
    static func special(in bytes: UnsafeRawBufferPointer, from position: Int, checking: Bool) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var position = position
        while position + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let quotes = word ^ 0x2222_2222_2222_2222
            let slashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let flags =
                checking
                ? ((quotes &- ones) | (slashes &- ones) | (word &- 0x2020_2020_2020_2020) | word) & highs
                : ((quotes &- ones) & ~quotes | (slashes &- ones) & ~slashes) & highs
            if flags != 0 {
                return position + flags.trailingZeroBitCount / 8
            }
            position += 8
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (checking && (byte < 0x20 || byte >= 0x80)) {
                return position
            }
            position += 1
        }
        return bytes.count
    }

    /// Like ``stringEnd(in:from:)``, for bytes nobody has validated yet: `nil` at anything the
    /// scanner would look at closer or refuse (a control character, a byte that is not ASCII, an
    /// escape other than JSON's, no closing quote). A reader that takes a document's commonest
    /// form in one pass falls back to the scanner on `nil`, so it accepts nothing the scanner
    /// would refuse.
    package static func checkedStringEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> (
        end: Int, escaped: Bool
    )? {
        let count = bytes.count
        var position = start
        var escaped = false
        while true {
            position = Self.special(in: bytes, from: position, checking: true)
            guard position < count else {
                return nil
            }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                return (position, escaped)
            case UInt8(ascii: "\\"):
                guard position + 1 < count else {
                    return nil
                }
                switch bytes[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard position + 6 <= count,
                        (2..<6).allSatisfy({ JSONScanner.hexValue(bytes[position + $0]) != nil })
                    else {
                        return nil
                    }
                    position += 6
                default:
                    return nil
                }
                escaped = true
            default:
                return nil
            }
        }
    }

    /// Moves to `offset`, for a reader that read ahead on its own (``stringEnd(in:from:)``).
    @inlinable
    package mutating func move(to offset: Int) {
        self.position = offset
    }

    @inlinable
    mutating func open(_ opening: UInt8, closing: UInt8) throws(FetchError) -> Bool {
        self.skipWhitespace()
        try self.expect(opening)
        self.skipWhitespace()
        guard self.peek() == closing else {
            return true
        }
        self.position += 1
        return false
    }

    @inlinable
    mutating func separator(closing: UInt8, _ place: String) throws(FetchError) -> Bool {
        self.skipWhitespace()
        let byte = self.peek()
        self.position += 1
        if byte == closing {
            return false
        }
        guard byte == UInt8(ascii: ",") else {
            throw self.shape("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(place)")
        }
        return true
    }

    @inlinable
    func peek() -> UInt8? {
        self.position < self.bytes.count ? self.bytes[self.position] : nil
    }

    @inlinable
    mutating func expect(_ byte: UInt8) throws(FetchError) {
        let found = self.peek()
        self.position += 1
        guard found == byte else {
            throw self.shape("expected '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    @inlinable
    mutating func skipWhitespace() {
        while let byte = self.peek(), Self.isSpace(byte) {
            self.position += 1
        }
    }

    @inlinable
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    @inlinable
    func shape(_ message: String) -> FetchError {
        FetchError(kind: .unexpectedShape, message: "\(message) at byte \(self.position)")
    }
}
