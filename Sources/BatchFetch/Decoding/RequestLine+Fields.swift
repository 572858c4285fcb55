import Foundation

/// Reading a request line's values out of bytes the scanner has validated (see ``RequestLine``).
extension JSONScanner {
    /// A key's text (escapes resolved) from the raw range between its quotes.
    func text(_ key: Range<Int>) -> String {
        let raw = UnsafeBufferPointer(start: self.base + key.lowerBound, count: key.count)
        if raw.contains(UInt8(ascii: "\\")) {
            return String(decoding: Self.unescape(raw), as: UTF8.self)
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// The decoded content of the validated string `value` (quotes included in the range).
    func stringContent(_ value: Range<Int>) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: self.base + value.lowerBound + 1, count: value.count - 2)
        if raw.contains(UInt8(ascii: "\\")) {
            return Self.unescape(raw)
        }
        return Array(raw)
    }

    /// The text of the validated string `value`, made straight from its bytes when it has no
    /// escape (a URL, nearly always).
    func stringText(_ value: Range<Int>) -> String {
        let raw = UnsafeBufferPointer(start: self.base + value.lowerBound + 1, count: value.count - 2)
        if raw.contains(UInt8(ascii: "\\")) {
            return String(decoding: Self.unescape(raw), as: UTF8.self)
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// The decoded content of field `field`'s value, which must be a string.
    func string(_ value: Range<Int>, field: String) throws(FetchError) -> [UInt8] {
        guard self.base[value.lowerBound] == UInt8(ascii: "\"") else {
            throw RequestLine.invalid("field '\(field)' is not a string")
        }
        return self.stringContent(value)
    }

    /// The value's raw bytes, a CR between tokens made a space (valid JSON has raw CRs nowhere
    /// else: strings escape theirs).
    func raw(_ value: Range<Int>) -> [UInt8] {
        var bytes = Array(UnsafeBufferPointer(start: self.base + value.lowerBound, count: value.count))
        if memchr(self.base + value.lowerBound, 0x0D, value.count) != nil {
            for index in bytes.indices where bytes[index] == 0x0D {
                bytes[index] = 0x20
            }
        }
        return bytes
    }

    /// The value without white space between its tokens, as a body is sent.
    func compact(_ value: Range<Int>) -> [UInt8] {
        let bytes = UnsafeRawBufferPointer(start: self.base, count: value.upperBound)
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var runStart = value.lowerBound
        var position = value.lowerBound
        while position < value.upperBound {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                // Validated: the string ends at the first quote no backslash escapes.
                position = FlatScanner.stringEnd(in: bytes, from: position + 1).end + 1
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                out.append(contentsOf: bytes[runStart..<position])
                position = self.skipWhitespace(from: position)
                runStart = position
            } else {
                position += 1
            }
        }
        out.append(contentsOf: bytes[runStart..<value.upperBound])
        return out
    }

    /// The bytes of field `field`'s value, a base64 string (RFC 4648, padded, as vegeta and most
    /// encoders write it).
    func base64(_ value: Range<Int>, field: String) throws(FetchError) -> [UInt8] {
        let text = try self.string(value, field: field)
        guard let data = Data(base64Encoded: Data(text)) else {
            throw RequestLine.invalid("field '\(field)' is not valid base64")
        }
        return [UInt8](data)
    }

    /// The header fields of an object of names to a string or an array of strings (`arraysOnly`:
    /// arrays only, as in vegeta's `header`), each checked as a header field is.
    func headers(_ value: Range<Int>, field: String, arraysOnly: Bool) throws(FetchError) -> [HeaderField] {
        guard self.base[value.lowerBound] == UInt8(ascii: "{") else {
            throw RequestLine.invalid("field '\(field)' is not an object of header names to values")
        }
        var fields: [HeaderField] = []
        var position = self.skipWhitespace(from: value.lowerBound + 1)
        if self.base[position] == UInt8(ascii: "}") {
            return fields
        }
        // Validated already: members, separators and values are where the grammar puts them.
        while true {
            guard let (start, key) = try? self.member(at: position),
                let end = try? self.skipValue(at: start, depth: 2)
            else {
                preconditionFailure("a header object the scanner validated failed to scan")
            }
            let name = self.text(key)
            let valueFirst = self.base[start]
            if valueFirst == UInt8(ascii: "\"") && !arraysOnly {
                fields.append(
                    HeaderField(name: name, value: String(decoding: self.stringContent(start..<end), as: UTF8.self)))
            } else if valueFirst == UInt8(ascii: "[") {
                try self.appendArray(start..<end, name: name, field: field, to: &fields)
            } else {
                let expected = arraysOnly ? "an array of strings" : "a string or an array of strings"
                throw RequestLine.invalid("field '\(field)': the value of '\(name)' is not \(expected)")
            }
            position = self.skipWhitespace(from: end)
            if self.base[position] == UInt8(ascii: "}") {
                break
            }
            position = self.skipWhitespace(from: position + 1)
        }
        for header in fields {
            if let error = header.validationError() {
                throw RequestLine.invalid("field '\(field)': \(error.message)")
            }
        }
        return fields
    }

    /// Appends one field named `name` per string of the validated array `value`.
    private func appendArray(
        _ value: Range<Int>, name: String, field: String, to fields: inout [HeaderField]
    ) throws(FetchError) {
        var position = self.skipWhitespace(from: value.lowerBound + 1)
        while self.base[position] != UInt8(ascii: "]") {
            guard self.base[position] == UInt8(ascii: "\""), let end = try? self.string(at: position) else {
                throw RequestLine.invalid("field '\(field)': the value of '\(name)' is not an array of strings")
            }
            fields.append(
                HeaderField(name: name, value: String(decoding: self.stringContent(position..<end), as: UTF8.self)))
            position = self.skipWhitespace(from: end)
            if self.base[position] == UInt8(ascii: ",") {
                position = self.skipWhitespace(from: position + 1)
            }
        }
    }
}
