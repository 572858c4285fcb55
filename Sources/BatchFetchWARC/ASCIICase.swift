extension UInt8 {
    /// The byte with an ASCII capital letter made small; any other byte as it is. HTTP field
    /// names, media types and URL hosts compare so, without a String's Unicode case mapping.
    var asciiLowercased: UInt8 {
        self >= 0x41 && self <= 0x5A ? self | 0x20 : self
    }
}

extension Array where Element == UInt8 {
    /// Appends `text`'s UTF-8 bytes from its contiguous storage: appending a String's `utf8` view
    /// goes through the view a byte at a time, which cost most of a record head's making.
    mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { self.append(contentsOf: $0) }
    }

    /// Appends `text`, a literal's bytes.
    mutating func appendLiteral(_ text: StaticString) {
        self.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
