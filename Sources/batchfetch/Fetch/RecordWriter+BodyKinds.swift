import Foundation

/// What a body looks like before it is written: JSON or not, binary or text (`--body auto`).
extension RecordWriter {
    /// Whether `body` can be a JSON document: false when its first byte after white space cannot
    /// start a value (an HTML page's `<`), so that neither the validator nor the scanner's error
    /// message, only to be dropped, is paid for. True for an empty body.
    static func mayBeJSON(_ body: Data) -> Bool {
        body.withUnsafeBytes { raw in
            guard let first = raw.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
                return true
            }
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                return true
            default:
                return false
            }
        }
    }

    /// Whether a media type names bytes that are not text: `image/`, `audio/`, `video/`, `font/`,
    /// `model/` and `application/` types, except those naming JSON, XML, JavaScript or ECMAScript
    /// (`+json`, `+xml`: `image/svg+xml` is text) and the textual ones below. README's rule.
    static func isBinary(_ contentType: String?) -> Bool {
        guard let contentType else {
            return false
        }
        // Nearly every response is one of these: known without building a lower-cased copy.
        if Self.startsWith(contentType, "application/json") || Self.startsWith(contentType, "text/") {
            return false
        }
        // Over bytes: Foundation's trimming and substring search cost ~10 µs an image record.
        var text = contentType
        let type: [UInt8] = text.withUTF8 { bytes in
            let token = bytes.prefix { $0 != UInt8(ascii: ";") }
            let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
            guard let first = token.firstIndex(where: { !isBlank($0) }),
                let last = token.lastIndex(where: { !isBlank($0) })
            else {
                return []
            }
            return token[first...last].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        if type.starts(with: "text/".utf8) || Self.textualMarks.contains(where: { type.contains($0) }) {
            return false
        }
        return !Self.textualTypes.contains(type) && Self.binaryPrefixes.contains { type.starts(with: $0) }
    }

    private static let textualMarks = ["json", "xml", "javascript", "ecmascript"].map { Array($0.utf8) }
    private static let textualTypes: Set<[UInt8]> = Set(
        [
            "application/x-www-form-urlencoded", "application/yaml", "application/x-yaml", "application/csv",
            "application/graphql", "application/sql", "message/http",
        ].map { Array($0.utf8) })
    private static let binaryPrefixes = ["image/", "audio/", "video/", "font/", "application/", "model/"].map {
        Array($0.utf8)
    }

    /// Whether `text`'s bytes begin with `prefix`'s, compared as bytes (the generic
    /// `starts(with:)` over two UTF-8 views cost ~1,000 instructions a record).
    fileprivate static func startsWith(_ text: String, _ prefix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, bytes.count >= prefix.utf8CodeUnitCount else {
                return false
            }
            return memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        }
    }
}
