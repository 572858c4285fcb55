/// The scanner's helpers for the text inside strings: hex digits, escapes, error wording.
extension JSONScanner {
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
        Self.unescape(raw, into: &out)
        return out
    }

    /// Appends the decoded content of an already validated JSON string to `out` (a buffer reused
    /// across strings allocates once).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + raw.count)
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
                let (scalar, next) = Self.escapedScalar(raw, at: i)
                i = next
                UTF8.encode(scalar) { out.append($0) }
            default: out.append(code)
            }
        }
    }

    /// The scalar of a `\u` escape whose four hex digits start at `index`, and the offset after
    /// it: a high surrogate escaped right before a low one forms one scalar; a lone surrogate is
    /// U+FFFD. Validated content: the digits are there.
    static func escapedScalar(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        var scalar = Self.hex4(raw, at: index)
        var next = index + 4
        if (0xD800...0xDBFF).contains(scalar), next + 6 <= raw.count, raw[next] == UInt8(ascii: "\\"),
            raw[next + 1] == UInt8(ascii: "u")
        {
            let low = Self.hex4(raw, at: next + 2)
            if (0xDC00...0xDFFF).contains(low) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                next += 6
            }
        }
        return (Unicode.Scalar(scalar) ?? "\u{FFFD}", next)
    }

    fileprivate static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
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
