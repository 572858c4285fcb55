internal import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The header fields of a response, looked up case-insensitively.
///
/// Kept as the raw header block the server sent and parsed on lookup: most callers read one or
/// two fields, so building a dictionary of strings for every response would be wasted work on
/// the hot path.
public struct HTTPHeaders: Sendable, Hashable, Sequence {
    let raw: [UInt8]

    /// Creates headers from a raw block of `Name: value` lines separated by CRLF or LF.
    public init(raw: [UInt8]) {
        self.raw = raw
    }

    /// Creates headers from name/value pairs.
    public init(_ fields: [(String, String)]) {
        self.raw = Self.raw(fields.map { (name: $0.0, value: $0.1) })
    }

    /// A raw CRLF-separated block of `fields`.
    static func raw(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var raw: [UInt8] = []
        for (name, value) in fields {
            Self.append(name: name.utf8, value: value.utf8, to: &raw)
        }
        return raw
    }

    /// Appends one `Name: value` line to a raw block.
    package static func append(name: some Collection<UInt8>, value: some Collection<UInt8>, to raw: inout [UInt8]) {
        raw.append(contentsOf: name)
        raw.append(contentsOf: ": ".utf8)
        raw.append(contentsOf: value)
        raw.append(contentsOf: "\r\n".utf8)
    }

    /// The value of the last field with this name (case-insensitive), without surrounding spaces.
    ///
    /// For a field that may appear once (`Content-Type`, `ETag`, `Retry-After`): one sent twice
    /// reads as the last, as curl reads it (`%{content_type}`, `Retry-After`) and browsers read
    /// `Content-Type` (Fetch, "extract a MIME type"). ``values(for:)`` has every one.
    public subscript(name: String) -> String? {
        self.lastValue(for: name, skippingEmpty: false)
    }

    /// The value of the last field with this name whose value is not empty: how curl reads
    /// `Content-Type`, where an empty one says nothing (``Response/contentType``).
    func lastNonEmptyValue(for name: String) -> String? {
        self.lastValue(for: name, skippingEmpty: true)
    }

    private func lastValue(for name: String, skippingEmpty: Bool) -> String? {
        // Compared as bytes: only the matching field's value becomes a String (this runs for
        // every record, and most responses carry a dozen fields).
        var name = name
        return name.withUTF8 { wanted in
            self.raw.withUnsafeBufferPointer { raw in
                Self.lastValue(named: wanted, in: raw, skippingEmpty: skippingEmpty).map {
                    String(decoding: UnsafeBufferPointer(rebasing: raw[$0]), as: UTF8.self)
                }
            }
        }
    }

    /// The trimmed value of the last line `wanted: value` (name ASCII case-insensitive): the
    /// lines ``FieldIterator`` yields, read from the end with `memrchr`, so that the lines before
    /// the match are never read, and without looking for the colon of every line, since a match
    /// must have its colon right after the name.
    private static func lastValue(
        named wanted: UnsafeBufferPointer<UInt8>, in raw: UnsafeBufferPointer<UInt8>, skippingEmpty: Bool
    ) -> Range<Int>? {
        let count = wanted.count
        // A field name holds no colon and is never empty: such a name matches nothing.
        guard count > 0, let base = raw.baseAddress, !wanted.contains(UInt8(ascii: ":")) else {
            return nil
        }
        let first = wanted[0].asciiLowercased
        // The current line runs from `lineStart` to `end`, its line feed (or the block's end).
        var end = raw.count
        while true {
            var lineStart = 0
            if end > 0, let lineFeed = clinux_memrchr(base, 0x0A, end) {
                lineStart = UnsafeRawPointer(base).distance(to: lineFeed) + 1
            }
            var lineEnd = end
            if lineEnd > lineStart && raw[lineEnd - 1] == UInt8(ascii: "\r") {
                lineEnd -= 1
            }
            if lineEnd - lineStart > count, raw[lineStart + count] == UInt8(ascii: ":"),
                raw[lineStart].asciiLowercased == first,
                UnsafeBufferPointer(rebasing: raw[lineStart..<lineStart + count]).elementsEqual(
                    wanted, by: UInt8.asciiCaseInsensitiveEqual)
            {
                var valueStart = lineStart + count + 1
                while valueStart < lineEnd && (raw[valueStart] == 0x20 || raw[valueStart] == 0x09) {
                    valueStart += 1
                }
                var valueEnd = lineEnd
                while valueEnd > valueStart && (raw[valueEnd - 1] == 0x20 || raw[valueEnd - 1] == 0x09) {
                    valueEnd -= 1
                }
                if valueStart < valueEnd || !skippingEmpty {
                    return valueStart..<valueEnd
                }
            }
            guard lineStart > 0 else {
                return nil
            }
            end = lineStart - 1
        }
    }

    /// The values of every field with this name, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        var fields = FieldIterator(raw: self.raw)
        while let field = fields.next() {
            if self.nameMatches(field.name, name) {
                values.append(String(decoding: self.raw[field.value], as: UTF8.self))
            }
        }
        return values
    }

    /// Calls `body` with each field's name and value (trimmed) as bytes, in order: for readers of
    /// several fields, in one pass and without a String per field.
    package func forEachField(_ body: (_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) -> Void) {
        var fields = FieldIterator(raw: self.raw)
        while let field = fields.next() {
            body(self.raw[field.name], self.raw[field.value])
        }
    }

    /// Whether two field names are equal, ASCII case-insensitively.
    package static func sameName(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count && a.elementsEqual(b, by: UInt8.asciiCaseInsensitiveEqual)
    }

    public func makeIterator() -> Iterator {
        Iterator(raw: self.raw)
    }

    private func nameMatches(_ range: Range<Int>, _ name: String) -> Bool {
        range.count == name.utf8.count
            && self.raw[range].elementsEqual(name.utf8, by: UInt8.asciiCaseInsensitiveEqual)
    }

    /// Iterates the fields in order, skipping status lines and malformed lines.
    public struct Iterator: IteratorProtocol {
        private let raw: [UInt8]
        private var fields: FieldIterator

        init(raw: [UInt8]) {
            self.raw = raw
            self.fields = FieldIterator(raw: raw)
        }

        public mutating func next() -> (name: String, value: String)? {
            guard let field = self.fields.next() else {
                return nil
            }
            return (
                String(decoding: self.raw[field.name], as: UTF8.self),
                String(decoding: self.raw[field.value], as: UTF8.self)
            )
        }
    }

    /// Finds the byte ranges of each field's name and trimmed value.
    struct FieldIterator {
        let raw: [UInt8]
        var position = 0

        mutating func next() -> (name: Range<Int>, value: Range<Int>)? {
            var position = self.position
            let field = self.raw.withUnsafeBufferPointer { Self.next(in: $0, from: &position) }
            self.position = position
            return field
        }

        /// The next field of `raw` at or after `position`, which moves past its line: for a reader
        /// that holds the bytes already (through a buffer, slicing costs no retain a line).
        static func next(in raw: UnsafeBufferPointer<UInt8>, from position: inout Int) -> (
            name: Range<Int>, value: Range<Int>
        )? {
            while position < raw.count {
                let lineStart = position
                let end = raw[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? raw.count
                position = end + 1
                var lineEnd = end
                if lineEnd > lineStart && raw[lineEnd - 1] == UInt8(ascii: "\r") {
                    lineEnd -= 1
                }
                guard let colon = raw[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: ":")), colon > lineStart
                else {
                    continue
                }
                var valueStart = colon + 1
                while valueStart < lineEnd && (raw[valueStart] == 0x20 || raw[valueStart] == 0x09) {
                    valueStart += 1
                }
                var valueEnd = lineEnd
                while valueEnd > valueStart && (raw[valueEnd - 1] == 0x20 || raw[valueEnd - 1] == 0x09) {
                    valueEnd -= 1
                }
                return (lineStart..<colon, valueStart..<valueEnd)
            }
            return nil
        }
    }
}

extension UInt8 {
    /// The byte with ASCII `A`–`Z` lowered; every other byte as it is. Names in HTTP (schemes,
    /// header fields, media types) compare this way, without building lower-cased Strings.
    var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }

    /// Whether two bytes are equal with ASCII letters compared case-insensitively.
    package static func asciiCaseInsensitiveEqual(_ a: UInt8, _ b: UInt8) -> Bool {
        a.asciiLowercased == b.asciiLowercased
    }
}

extension ArraySlice<UInt8> {
    /// Whether these bytes spell `lowercased` (which must be all lower case), ASCII
    /// case-insensitively: a header name or a month read as bytes, without a String.
    package func isASCIICaseInsensitive(_ lowercased: StaticString) -> Bool {
        self.count == lowercased.utf8CodeUnitCount
            && lowercased.withUTF8Buffer { self.elementsEqual($0, by: { $0.asciiLowercased == $1 }) }
    }
}
