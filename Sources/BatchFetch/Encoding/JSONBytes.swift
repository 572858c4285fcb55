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

    package mutating func raw(_ text: String) {
        self.buffer.append(contentsOf: text.utf8)
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
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                // Written back the same way.
                self.buffer.append(UInt8(ascii: "\\"))
                self.buffer.append(code)
            case UInt8(ascii: "b"): self.raw("\\u0008")
            case UInt8(ascii: "f"): self.raw("\\u000c")
            case UInt8(ascii: "u"):
                var scalar = JSONScanner.hex4(raw, at: run)
                run += 4
                // A high surrogate followed by an escaped low one forms one scalar (as unescape).
                if (0xD800...0xDBFF).contains(scalar), run + 6 <= raw.count, raw[run] == UInt8(ascii: "\\"),
                    raw[run + 1] == UInt8(ascii: "u")
                {
                    let low = JSONScanner.hex4(raw, at: run + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        run += 6
                    }
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                if character.value < 0x80 {
                    withUnsafeBytes(of: UInt8(character.value)) { self.string(utf8: $0, quoted: false) }
                } else {
                    self.buffer.append(contentsOf: String(character).utf8)
                }
            default:
                self.buffer.append(code)
            }
        }
        if run < raw.count {
            self.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[run...]))
        }
        self.buffer.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal of UTF-8 text, escaped exactly as ``string(_:)`` escapes it.
    package mutating func string(utf8 bytes: UnsafeRawBufferPointer) {
        self.string(utf8: bytes, quoted: true)
    }

    private mutating func string(utf8 bytes: UnsafeRawBufferPointer, quoted: Bool) {
        if quoted {
            self.buffer.append(UInt8(ascii: "\""))
        }
        defer {
            if quoted {
                self.buffer.append(UInt8(ascii: "\""))
            }
        }
        // Most strings need no escaping: find out in one pass, then copy them in one append.
        if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F }) {
            self.buffer.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): self.raw("\\\"")
            case UInt8(ascii: "\\"): self.raw("\\\\")
            case 0x0A: self.raw("\\n")
            case 0x0D: self.raw("\\r")
            case 0x09: self.raw("\\t")
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                self.raw("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: self.buffer.append(byte)
            }
        }
    }
}
