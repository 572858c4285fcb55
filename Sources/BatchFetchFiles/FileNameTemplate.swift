import BatchFetch

/// How a saved body's file is named: literal text and the placeholders `{index}` (the record's
/// index), `{name}` (the URL's last path segment, made safe) and `{sha256}` (the body's digest,
/// for content-addressed stores), e.g. the default `{index}-{name}`.
///
/// Names never come from a server as they are: every character outside `A-Z a-z 0-9 . _ - +`
/// becomes `_`, so a name holds no `/`, no `..` path and no control character, and a leading `.`
/// (hidden files, and the store's own temporaries) becomes `_`. A name is at most 200 bytes.
public struct FileNameTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case index
        case name
        case sha256
    }

    let parts: [Part]
    public let description: String

    /// The default: `{index}-{name}`, unique within a run and readable.
    public static let standard = FileNameTemplate(parts: [.index, .literal("-"), .name], text: "{index}-{name}")

    private init(parts: [Part], text: String) {
        self.parts = parts
        self.description = text
    }

    /// Parses a template. - Throws: ``FetchError/Kind/invalidConfiguration`` for an unknown
    /// placeholder, an unclosed brace, a character a file name may not hold, or no placeholder
    /// that tells records apart.
    public init(parsing text: String) throws(FetchError) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex {
                parts.append(.literal(String(rest[..<open])))
            }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Self.invalid(text, "an unclosed '{'")
            }
            switch rest[rest.index(after: open)..<close] {
            case "index": parts.append(.index)
            case "name": parts.append(.name)
            case "sha256": parts.append(.sha256)
            case let other: throw Self.invalid(text, "unknown placeholder '{\(other)}' (use {index}, {name}, {sha256})")
            }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty {
            parts.append(.literal(String(rest)))
        }
        for case .literal(let literal) in parts where literal.utf8.contains(where: { !Self.isSafe($0) }) {
            throw Self.invalid(text, "'\(literal)' holds a character other than A-Z a-z 0-9 . _ - +")
        }
        guard parts.contains(.index) || parts.contains(.sha256) || parts.contains(.name) else {
            throw Self.invalid(text, "it has no placeholder, so every body would get the same name")
        }
        self.init(parts: parts, text: text)
    }

    /// Whether the name depends on the body (it holds `{sha256}`), so it is known only once the
    /// body is.
    public var dependsOnContent: Bool { self.parts.contains(.sha256) }

    /// The file name for a body.
    public func name(index: Int, url: String, sha256: String) -> String {
        var name = ""
        for part in self.parts {
            switch part {
            case .literal(let text): name += text
            case .index: name += String(index)
            case .name: name += Self.lastSegment(of: url)
            case .sha256: name += sha256
            }
        }
        return Self.safe(name)
    }

    /// The last segment of a URL's path, percent-decoded and made safe: `index` when the path
    /// ends in `/` or is empty.
    public static func lastSegment(of url: String) -> String {
        // On the UTF-8 bytes: every delimiter is ASCII, and Character searches cost microseconds
        // a URL, as much as the rest of saving a small file.
        var text = Array(url.utf8)[...]
        if let scheme = Self.firstRange(of: Array("://".utf8), in: text) {
            text = text[scheme.upperBound...]
            text = text.firstIndex(of: UInt8(ascii: "/")).map { text[$0...] } ?? []
        }
        if let end = text.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            text = text[..<end]
        }
        let segment = text.lastIndex(of: UInt8(ascii: "/")).map { text[($0 + 1)...] } ?? text
        let decoded = Self.percentDecoded(segment)
        return decoded.isEmpty || decoded == "." || decoded == ".." ? "index" : decoded
    }

    private static func firstRange(of needle: [UInt8], in text: ArraySlice<UInt8>) -> Range<Int>? {
        guard text.count >= needle.count else {
            return nil
        }
        for start in text.startIndex...(text.endIndex - needle.count)
        where text[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    private static func percentDecoded(_ text: ArraySlice<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var utf8 = text
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let high = Self.hex(utf8[utf8.startIndex]),
                let low = Self.hex(utf8[utf8.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"),
            UInt8(ascii: "+"):
            true
        default: false
        }
    }

    /// `name` with every unsafe byte (each byte of a non-ASCII character too) as `_`, no leading
    /// `.`, at most 200 bytes.
    public static func safe(_ name: String) -> String {
        var bytes = name.utf8.prefix(200).map { Self.isSafe($0) ? $0 : UInt8(ascii: "_") }
        if bytes.first == UInt8(ascii: ".") {
            bytes[0] = UInt8(ascii: "_")
        }
        return bytes.isEmpty ? "_" : String(decoding: bytes, as: UTF8.self)
    }

    private static func invalid(_ text: String, _ reason: String) -> FetchError {
        FetchError(kind: .invalidConfiguration, message: "file name template '\(text)': \(reason)")
    }
}
