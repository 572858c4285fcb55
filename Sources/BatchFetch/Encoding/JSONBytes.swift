internal import CBytes
import Foundation

/// Appends JSON text to a byte buffer: string literals with the escapes JSON requires, numbers.
///
/// Hand-written because records must come out byte-identical run after run (field order as we
/// write it) and fast; JSONEncoder offers neither guarantee cheaply. Shared by the command's
/// records and the crawl's drink records (`package`), so both escape strings the same way.
package struct JSONBytes {
    package var buffer: [UInt8] = []

    package init() {}

    @inlinable
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { self.buffer.append(contentsOf: $0) }
    }

    /// Text that is already JSON, appended as it is. Named apart from ``raw(_:)-(StaticString)``
    /// so that literals take the static path (a `String` is appended through its UTF-8 view).
    package mutating func raw(string text: String) {
        var text = text
        text.withUTF8 { self.buffer.append(contentsOf: $0) }
    }

    /// One byte of JSON text (a separator).
    @inlinable
    package mutating func byte(_ byte: UInt8) {
        self.buffer.append(byte)
    }

    /// Bytes that are already JSON text, appended as they are.
    @inlinable
    package mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        self.buffer.append(contentsOf: bytes)
    }

    /// Bytes that are already JSON text, appended as they are.
    @inlinable
    package mutating func raw(_ bytes: [UInt8]) {
        self.buffer.append(contentsOf: bytes)
    }

    package mutating func int(_ value: Int) {
        if value < 0 {
            self.buffer.append(UInt8(ascii: "-"))
        }
        self.digits(value.magnitude, minimumCount: 1)
    }

    /// A duration in milliseconds with three decimals (microsecond precision), e.g. `12.034`.
    package mutating func milliseconds(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        if micros < 0 {
            self.buffer.append(UInt8(ascii: "-"))
        }
        self.digits(UInt(micros.magnitude / 1000), minimumCount: 1)
        self.buffer.append(UInt8(ascii: "."))
        self.digits(UInt(micros.magnitude % 1000), minimumCount: 3)
    }

    /// Decimal digits, left-padded with zeros to `minimumCount`, without building a String.
    private mutating func digits(_ value: UInt, minimumCount: Int) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: UInt.max has 20 digits
        withUnsafeMutableBytes(of: &scratch) { space in
            var end = space.count
            var rest = value
            repeat {
                end -= 1
                space[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0 || space.count - end < minimumCount
            self.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: space[end...]))
        }
    }

    /// A JSON string literal; `nil` is written as `null`.
    package mutating func string(_ text: String?) {
        guard var text else {
            self.raw("null")
            return
        }
        text.withUTF8 { self.string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The JSON string literal of a validated string's content (the bytes between its quotes),
    /// written as ``string(_:)`` writes the decoded text: `\/` becomes `/`, `\u00e9` becomes
    /// `é`, and only what ``string(_:)`` escapes stays escaped. One pass, runs between
    /// backslashes copied whole, no decoded copy.
    package mutating func string(jsonContent raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, memchr(base, 0x7F, raw.count) == nil else {
            // DEL, which string(_:) escapes, is legal unescaped in JSON: decode, then escape.
            var text: [UInt8] = []
            JSONScanner.unescape(raw.assumingMemoryBound(to: UInt8.self), into: &text)
            text.withUnsafeBytes { self.string(utf8: $0) }
            return
        }
        self.buffer.append(UInt8(ascii: "\""))
        var run = 0
        while run < raw.count,
            let found = memchr(base + run, Int32(UInt8(ascii: "\\")), raw.count - run)
        {
            let slash = UnsafeRawPointer(found) - base
            self.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[run..<slash]))
            let code = slash + 1 < raw.count ? raw[slash + 1] : UInt8(ascii: "\\")
            run = slash + 2
            switch code {
            case UInt8(ascii: "u"):
                let (scalar, next) = JSONScanner.escapedScalar(raw.assumingMemoryBound(to: UInt8.self), at: run)
                run = next
                self.scalar(scalar)
            case UInt8(ascii: "b"): self.escapedByte(0x08)
            case UInt8(ascii: "f"): self.escapedByte(0x0C)
            case UInt8(ascii: "n"): self.escapedByte(0x0A)
            case UInt8(ascii: "r"): self.escapedByte(0x0D)
            case UInt8(ascii: "t"): self.escapedByte(0x09)
            default:
                // `\"`, `\\`, `\/`: the character itself.
                self.escapedByte(code)
            }
        }
        if run < raw.count {
            self.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[run...]))
        }
        self.buffer.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal of UTF-8 text, escaped exactly as ``string(_:)`` escapes it.
    package mutating func string(utf8 bytes: UnsafeRawBufferPointer) {
        // Most strings need no escaping: find out in one pass, then copy them in one append.
        guard Self.anyNeedsEscape(bytes) else {
            self.buffer.append(UInt8(ascii: "\""))
            self.buffer.append(contentsOf: bytes)
            self.buffer.append(UInt8(ascii: "\""))
            return
        }
        if let literal = Self.stringLiteral(validatingUTF8: bytes) {
            self.buffer.append(contentsOf: literal)
        } else {
            // Not UTF-8 after all: escape the text as Swift decodes it (U+FFFD for each bad sequence).
            self.buffer.append(UInt8(ascii: "\""))
            for byte in String(decoding: bytes, as: UTF8.self).utf8 {
                self.escapedByte(byte)
            }
            self.buffer.append(UInt8(ascii: "\""))
        }
    }

    /// The JSON string literal (quotes included) of `bytes`, escaped as ``string(_:)`` escapes
    /// text, or `nil` when `bytes` is not well-formed UTF-8.
    ///
    /// Escapes by runs at memory speed (CBytes' `cbytes_escape_json`): the clean bytes between two
    /// that need escaping are copied whole, and UTF-8 is checked in the same pass. Bodies arrive as
    /// bytes, so they become JSON text without a `String` in between.
    package static func stringLiteral(validatingUTF8 bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            return [UInt8(ascii: "\""), UInt8(ascii: "\"")]
        }
        // Room for text where one byte in eight needs escaping; past that, a second pass with room
        // for the worst case.
        let expansion = Int(CBYTES_ESCAPE_MAX_EXPANSION)
        for room in [bytes.count + bytes.count / 8, bytes.count * expansion] {
            let capacity = room + Int(CBYTES_ESCAPE_SLACK) + 2
            var outcome: Int32 = 0
            let literal = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
                initialized = 0
                guard let start = out.baseAddress else {
                    return
                }
                start.initialize(to: UInt8(ascii: "\""))
                var written = 0
                outcome = cbytes_escape_json(base, bytes.count, start + 1, capacity - 2, &written)
                if outcome == 1 {
                    (start + 1 + written).initialize(to: UInt8(ascii: "\""))
                    initialized = written + 2
                }
            }
            if outcome != 0 {
                return outcome == 1 ? literal : nil
            }
        }
        return nil
    }

    /// The JSON string literal (quotes included) of `bytes` in base64 (RFC 4648, padded), for
    /// binary bodies that records carry inline.
    package static func base64Literal(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let length = Int(cbytes_base64_length(bytes.count))
        return [UInt8](unsafeUninitializedCapacity: length + 2) { out, initialized in
            guard let start = out.baseAddress else {
                initialized = 0
                return
            }
            start.initialize(to: UInt8(ascii: "\""))
            if let base = bytes.baseAddress {
                cbytes_base64_encode(base.assumingMemoryBound(to: UInt8.self), bytes.count, start + 1)
            }
            (start + 1 + length).initialize(to: UInt8(ascii: "\""))
            initialized = length + 2
        }
    }

    /// Whether any byte needs escaping: eight at a time (a byte is flagged when it is a control,
    /// a quote, a backslash or DEL; flags above a flagged byte may be false, which only matters
    /// for finding where, not whether).
    private static func anyNeedsEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let quotes = word ^ 0x2222_2222_2222_2222
            let slashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let deletes = word ^ 0x7F7F_7F7F_7F7F_7F7F
            // x - 1 sets a byte's high bit when x is 0 (or x >= 0x81); `& ~word` keeps only bytes
            // below 0x80, so non-ASCII bytes are never flagged.
            let flags =
                ((quotes &- ones) | (slashes &- ones) | (deletes &- ones) | (word &- 0x2020_2020_2020_2020))
                & ~word & 0x8080_8080_8080_8080
            if flags != 0 {
                return true
            }
            position += 8
        }
        while position < bytes.count {
            if Self.needsEscape(bytes[position]) {
                return true
            }
            position += 1
        }
        return false
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    /// One byte of a string's text, escaped as JSON requires and ``string(_:)`` writes it:
    /// `\"`, `\\`, `\n`, `\r`, `\t`, other controls and DEL as `\u00XX`.
    private mutating func escapedByte(_ byte: UInt8) {
        guard Self.needsEscape(byte) else {
            self.buffer.append(byte)
            return
        }
        switch byte {
        case UInt8(ascii: "\""): self.raw("\\\"")
        case UInt8(ascii: "\\"): self.raw("\\\\")
        case 0x0A: self.raw("\\n")
        case 0x0D: self.raw("\\r")
        case 0x09: self.raw("\\t")
        default:
            let digits: StaticString = "0123456789abcdef"
            self.raw("\\u00")
            digits.withUTF8Buffer { hex in
                self.buffer.append(hex[Int(byte >> 4)])
                self.buffer.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    /// One decoded scalar of a string's text, escaped as ``string(_:)`` escapes it.
    private mutating func scalar(_ scalar: Unicode.Scalar) {
        guard scalar.value >= 0x80 else {
            self.escapedByte(UInt8(scalar.value))
            return
        }
        UTF8.encode(scalar) { self.buffer.append($0) }
    }
}
