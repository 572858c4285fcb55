/// A minimal JSON writer that escapes like TheCocktailDB's PHP backend (`json_encode` defaults).
///
/// `JSONEncoder` cannot produce these bytes: the real server escapes `/` as `\/` and every
/// non-ASCII character as a lowercase `\uXXXX` escape (UTF-16, so astral characters become a
/// surrogate pair), and writes compact output with keys in a fixed order. Clients that compare
/// against captured responses, or that parse escapes by hand, see the same bytes here.
///
/// Used only when a document is first rendered; the rendered bytes are cached.
struct JSONWriter {
    private(set) var bytes: [UInt8]
    private var needsComma = false

    init(capacity: Int = 256) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        self.separate()
        self.bytes.append(UInt8(ascii: "{"))
        self.needsComma = false
    }

    mutating func endObject() {
        self.bytes.append(UInt8(ascii: "}"))
        self.needsComma = true
    }

    mutating func beginArray() {
        self.separate()
        self.bytes.append(UInt8(ascii: "["))
        self.needsComma = false
    }

    mutating func endArray() {
        self.bytes.append(UInt8(ascii: "]"))
        self.needsComma = true
    }

    /// Writes `"key":` inside an object; the next value call writes the value.
    mutating func key(_ key: String) {
        self.separate()
        self.writeString(key)
        self.bytes.append(UInt8(ascii: ":"))
        self.needsComma = false
    }

    /// Writes a string value, or `null` for `nil`.
    mutating func value(_ string: String?) {
        self.separate()
        if let string {
            self.writeString(string)
        } else {
            self.bytes.append(contentsOf: Self.null)
        }
        self.needsComma = true
    }

    /// Writes `"key":value` (a string or `null`).
    mutating func field(_ key: String, _ value: String?) {
        self.key(key)
        self.value(value)
    }

    private static let null: [UInt8] = Array("null".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func separate() {
        if self.needsComma {
            self.bytes.append(UInt8(ascii: ","))
        }
    }

    private mutating func writeString(_ string: String) {
        self.bytes.append(UInt8(ascii: "\""))
        for unit in string.utf16 {
            switch unit {
            case 0x22: self.bytes.append(contentsOf: [0x5C, 0x22])  // \"
            case 0x5C: self.bytes.append(contentsOf: [0x5C, 0x5C])  // \\
            case 0x2F: self.bytes.append(contentsOf: [0x5C, 0x2F])  // \/
            case 0x08: self.bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: self.bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: self.bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: self.bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: self.bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x20..<0x7F: self.bytes.append(UInt8(truncatingIfNeeded: unit))
            default: self.writeUnicodeEscape(unit)
            }
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeUnicodeEscape(_ unit: UInt16) {
        self.bytes.append(0x5C)
        self.bytes.append(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) {
            self.bytes.append(Self.hexDigits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
