/// The header fields of a response, looked up case-insensitively.
///
/// Kept as the raw header block the server sent and parsed on lookup: most callers read one or
/// two fields, so building a dictionary of strings for every response would be wasted work on
/// the hot path.
public struct HTTPHeaders: Sendable, Hashable, Sequence {
    private let raw: [UInt8]

    /// Creates headers from a raw block of `Name: value` lines separated by CRLF or LF.
    public init(raw: [UInt8]) {
        self.raw = raw
    }

    /// Creates headers from name/value pairs.
    public init(_ fields: [(String, String)]) {
        var raw: [UInt8] = []
        for (name, value) in fields {
            raw.append(contentsOf: name.utf8)
            raw.append(contentsOf: ": ".utf8)
            raw.append(contentsOf: value.utf8)
            raw.append(contentsOf: "\r\n".utf8)
        }
        self.raw = raw
    }

    /// The value of the first field with this name (case-insensitive), without surrounding spaces.
    public subscript(name: String) -> String? {
        self.first(where: { $0.name.utf8.elementsEqual(name.utf8, by: HTTPHeaders.asciiCaseInsensitiveEqual) })?.value
    }

    /// The values of every field with this name, in order.
    public func values(for name: String) -> [String] {
        self.filter { $0.name.utf8.elementsEqual(name.utf8, by: HTTPHeaders.asciiCaseInsensitiveEqual) }.map(\.value)
    }

    public func makeIterator() -> Iterator {
        Iterator(raw: self.raw)
    }

    /// Iterates the fields in order, skipping status lines and malformed lines.
    public struct Iterator: IteratorProtocol {
        private let raw: [UInt8]
        private var position = 0

        init(raw: [UInt8]) {
            self.raw = raw
        }

        public mutating func next() -> (name: String, value: String)? {
            while self.position < self.raw.count {
                var end = self.position
                while end < self.raw.count && self.raw[end] != UInt8(ascii: "\n") {
                    end += 1
                }
                let lineStart = self.position
                self.position = end + 1
                var lineEnd = end
                if lineEnd > lineStart && self.raw[lineEnd - 1] == UInt8(ascii: "\r") {
                    lineEnd -= 1
                }
                guard let colon = self.raw[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: ":")),
                    colon > lineStart
                else {
                    continue
                }
                var valueStart = colon + 1
                while valueStart < lineEnd && (self.raw[valueStart] == 0x20 || self.raw[valueStart] == 0x09) {
                    valueStart += 1
                }
                var valueEnd = lineEnd
                while valueEnd > valueStart && (self.raw[valueEnd - 1] == 0x20 || self.raw[valueEnd - 1] == 0x09) {
                    valueEnd -= 1
                }
                let name = String(decoding: self.raw[lineStart..<colon], as: UTF8.self)
                let value = String(decoding: self.raw[valueStart..<valueEnd], as: UTF8.self)
                return (name, value)
            }
            return nil
        }
    }

    private static func asciiCaseInsensitiveEqual(_ a: UInt8, _ b: UInt8) -> Bool {
        a | 0x20 == b | 0x20 && (a | 0x20 >= UInt8(ascii: "a") && a | 0x20 <= UInt8(ascii: "z") || a == b)
    }
}
