import Foundation

/// Fast reading of the commonest API shape: an array of flat objects whose values are strings,
/// numbers, booleans or null (a TheCocktailDB drink record is one of these, with ~50 fields).
///
/// Generic Codable decoding of such a record through `JSONDecoder` costs ~90 µs here; reading
/// the already validated bytes directly costs a few µs. Values that are not scalars make the
/// call throw ``FetchError/Kind/unexpectedShape``, so callers can fall back to `JSONDecoder`.
public enum FlatJSON {
    /// The objects of a validated JSON array, each as field name → value (`nil` for `null`;
    /// numbers and booleans as their JSON text).
    public static func objects(in slice: JSONSlice) throws(FetchError) -> [[String: String?]] {
        guard slice.kind == .array else {
            throw FetchError(
                kind: .unexpectedShape, message: "expected an array of objects, found \(slice.kind.withArticle)")
        }
        let outcome: Result<[[String: String?]], FetchError> = slice.withUnsafeBytes { raw in
            var reader = FlatReader(raw)
            do throws(FetchError) {
                return .success(try reader.arrayOfObjects())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// Reads validated JSON bytes; only what `FlatJSON` needs.
private struct FlatReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func arrayOfObjects() throws(FetchError) -> [[String: String?]] {
        var objects: [[String: String?]] = []
        try self.expect(UInt8(ascii: "["))
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "]") {
            return objects
        }
        while true {
            objects.append(try self.object())
            self.skipWhitespace()
            let separator = self.next()
            if separator == UInt8(ascii: "]") {
                return objects
            }
            guard separator == UInt8(ascii: ",") else {
                throw self.shape("expected ',' or ']' between objects")
            }
            self.skipWhitespace()
        }
    }

    private mutating func object() throws(FetchError) -> [String: String?] {
        try self.expect(UInt8(ascii: "{"))
        var fields: [String: String?] = [:]
        fields.reserveCapacity(64)
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "}") {
            self.position += 1
            return fields
        }
        while true {
            self.skipWhitespace()
            let key = try self.string()
            self.skipWhitespace()
            try self.expect(UInt8(ascii: ":"))
            self.skipWhitespace()
            switch self.peek() {
            case UInt8(ascii: "\""):
                fields[key] = .some(try self.string())
            case UInt8(ascii: "n"):
                self.position += 4
                fields[key] = .some(nil)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                throw self.shape("field '\(key)' is not a scalar")
            default:
                let start = self.position
                while let byte = self.peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), !Self.isSpace(byte)
                {
                    self.position += 1
                }
                fields[key] = .some(
                    String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.position]), as: UTF8.self)
                )
            }
            self.skipWhitespace()
            let separator = self.next()
            if separator == UInt8(ascii: "}") {
                return fields
            }
            guard separator == UInt8(ascii: ",") else {
                throw self.shape("expected ',' or '}' in an object")
            }
        }
    }

    /// A string at the current position (validated already: escapes are well formed).
    private mutating func string() throws(FetchError) -> String {
        try self.expect(UInt8(ascii: "\""))
        let start = self.position
        // The bytes are validated JSON: with no backslash before the first quote, that quote ends
        // the string. Two memchr calls find that for most strings, instead of a loop per byte.
        if let base = self.bytes.baseAddress, start < self.bytes.count,
            let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), self.bytes.count - start)
        {
            let end = start + (UnsafeRawPointer(quote) - (base + start))
            if memchr(base + start, Int32(UInt8(ascii: "\\")), end - start) == nil {
                self.position = end + 1
                return String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<end]), as: UTF8.self)
            }
        }
        var escaped = false
        while let byte = self.peek(), byte != UInt8(ascii: "\"") {
            if byte == UInt8(ascii: "\\") {
                escaped = true
                self.position += 2
            } else {
                self.position += 1
            }
        }
        let end = self.position
        self.position += 1
        let raw = UnsafeRawBufferPointer(rebasing: self.bytes[start..<min(end, self.bytes.count)])
        guard escaped else {
            return String(decoding: raw, as: UTF8.self)
        }
        return String(decoding: JSONScanner.unescape(raw.assumingMemoryBound(to: UInt8.self)), as: UTF8.self)
    }

    private func peek() -> UInt8? {
        self.position < self.bytes.count ? self.bytes[self.position] : nil
    }

    private mutating func next() -> UInt8? {
        defer { self.position += 1 }
        return self.peek()
    }

    private mutating func expect(_ byte: UInt8) throws(FetchError) {
        guard self.next() == byte else {
            throw self.shape("expected '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func skipWhitespace() {
        while let byte = self.peek(), Self.isSpace(byte) {
            self.position += 1
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private func shape(_ message: String) -> FetchError {
        FetchError(kind: .unexpectedShape, message: "\(message) at byte \(self.position)")
    }
}
