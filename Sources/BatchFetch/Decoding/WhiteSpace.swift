extension Substring {
    /// The text without leading and trailing Unicode white space (spaces, tabs, line breaks,
    /// no-break spaces, …): what Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`
    /// returns, without bridging through `NSString` (which decodes the text to UTF-16 first and
    /// was a visible cost per drink record in a crawl).
    package func trimmingWhiteSpace() -> String {
        let utf8 = self.utf8
        // Most values start and end with a printable ASCII byte: nothing to trim, nothing to scan.
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return String(self)
        }
        let scalars = self.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else {
            return ""
        }
        return String(self[start...end])
    }
}

extension String {
    /// See ``Substring/trimmingWhiteSpace()``.
    package func trimmingWhiteSpace() -> String {
        self[...].trimmingWhiteSpace()
    }
}
