/// Appends JSON text to a byte buffer: string literals with the escapes JSON requires, numbers.
///
/// Hand-written because records must come out byte-identical run after run (field order as we
/// write it) and fast; JSONEncoder offers neither guarantee cheaply.
struct JSONBytes {
    var buffer: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { self.buffer.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) {
        self.buffer.append(contentsOf: text.utf8)
    }

    mutating func int(_ value: Int) {
        if value < 0 {
            self.buffer.append(UInt8(ascii: "-"))
        }
        self.digits(value.magnitude, minimumCount: 1)
    }

    /// A duration in milliseconds with three decimals (microsecond precision), e.g. `12.034`.
    mutating func milliseconds(_ duration: Duration) {
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
    mutating func string(_ text: String?) {
        guard let text else {
            self.raw("null")
            return
        }
        self.buffer.append(UInt8(ascii: "\""))
        // Most strings need no escaping: find out in one pass, then copy them in one append from
        // the same contiguous bytes.
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F {
                return false
            }
            self.buffer.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            self.buffer.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
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
        self.buffer.append(UInt8(ascii: "\""))
    }
}
