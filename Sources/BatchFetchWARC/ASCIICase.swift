extension UInt8 {
    /// The byte with an ASCII capital letter made small; any other byte as it is. HTTP field
    /// names, media types and URL hosts compare so, without a String's Unicode case mapping.
    var asciiLowercased: UInt8 {
        self >= 0x41 && self <= 0x5A ? self | 0x20 : self
    }
}
