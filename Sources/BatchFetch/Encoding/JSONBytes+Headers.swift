import Foundation

extension JSONBytes {
    /// Every field of `headers` as one object, the shape of curl's `--write-out '%{header_json}'`:
    /// names lower-cased, in the order they first appear, each with the array of its values in
    /// order (`{"content-type":["application/json"],"set-cookie":["a=1","b=2"]}`), the fields
    /// ``HTTPHeaders`` iterates.
    ///
    /// Names and values are bytes as the server sent them; those that are not UTF-8 come out with
    /// each ill-formed sequence as U+FFFD, so the record stays valid JSON.
    package mutating func headers(_ headers: HTTPHeaders) {
        headers.raw.withUnsafeBufferPointer { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else {
                self.raw("{}")
                return
            }
            // At most one field a line: the fields' byte ranges fit on the stack (this runs for
            // every record, and a response has a dozen or two).
            var lines = 1
            var position = 0
            while position < raw.count, let found = memchr(base + position, 0x0A, raw.count - position) {
                lines += 1
                position = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
            }
            withUnsafeTemporaryAllocation(of: Field.self, capacity: lines) { space in
                var count = 0
                var position = 0
                while count < lines, let field = HTTPHeaders.FieldIterator.next(in: raw, from: &position) {
                    space.initializeElement(at: count, to: field)
                    count += 1
                }
                let fields = UnsafeBufferPointer(rebasing: space[..<count])
                if !self.plainObject(of: fields, in: raw) {
                    self.object(of: fields, in: raw)
                }
            }
        }
    }

    /// A field's name and trimmed value, as offsets into the raw block.
    private typealias Field = (name: Range<Int>, value: Range<Int>)

    /// Whether two fields' names are the same, ASCII case-insensitively.
    private static func sameName(_ a: Range<Int>, _ b: Range<Int>, in raw: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count
            && UnsafeBufferPointer(rebasing: raw[a]).elementsEqual(
                UnsafeBufferPointer(rebasing: raw[b]), by: UInt8.asciiCaseInsensitiveEqual)
    }

    /// Whether `bytes` are printable ASCII, which needs no escape beyond a backslash before `"`
    /// and `\`.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The object when every name and value is printable ASCII (nearly every response), composed
    /// on the stack and appended at once: appending a dozen pieces a field cost more than the rest.
    /// - Returns: false, having written nothing, when a name or value needs more than a backslash.
    private mutating func plainObject(of fields: UnsafeBufferPointer<Field>, in raw: UnsafeBufferPointer<UInt8>) -> Bool
    {
        guard
            fields.allSatisfy({
                Self.isPlain(UnsafeBufferPointer(rebasing: raw[$0.name]))
                    && Self.isPlain(UnsafeBufferPointer(rebasing: raw[$0.value]))
            })
        else {
            return false
        }
        // Each byte takes at most two (a backslash before it), and each field 9 more at most:
        // `"":[` `]` `,` and `"",`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * raw.count + 9 * fields.count + 2) { out in
            var end = 0
            func put(_ byte: UInt8) {
                out[end] = byte
                end += 1
            }
            func put(_ range: Range<Int>, lowered: Bool) {
                for index in range {
                    let byte = raw[index]
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                        put(UInt8(ascii: "\\"))
                    }
                    put(lowered ? byte.asciiLowercased : byte)
                }
            }
            put(UInt8(ascii: "{"))
            for index in fields.indices {
                let name = fields[index].name
                if fields[..<index].contains(where: { Self.sameName($0.name, name, in: raw) }) {
                    continue
                }
                if index > 0 {
                    put(UInt8(ascii: ","))
                }
                put(UInt8(ascii: "\""))
                put(name, lowered: true)
                put(UInt8(ascii: "\""))
                put(UInt8(ascii: ":"))
                var separator = UInt8(ascii: "[")
                for field in fields[index...] where Self.sameName(field.name, name, in: raw) {
                    put(separator)
                    separator = UInt8(ascii: ",")
                    put(UInt8(ascii: "\""))
                    put(field.value, lowered: false)
                    put(UInt8(ascii: "\""))
                }
                put(UInt8(ascii: "]"))
            }
            put(UInt8(ascii: "}"))
            self.buffer.append(contentsOf: UnsafeBufferPointer(rebasing: out[..<end]))
        }
        return true
    }

    /// The object, escaping what needs it.
    private mutating func object(of fields: UnsafeBufferPointer<Field>, in raw: UnsafeBufferPointer<UInt8>) {
        func sameName(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            Self.sameName(a, b, in: raw)
        }
        self.byte(UInt8(ascii: "{"))
        // Grouped by name with a search of the fields before each: fewer steps than a
        // dictionary's hashing, for a dozen or two fields.
        for index in fields.indices {
            let name = fields[index].name
            if fields[..<index].contains(where: { sameName($0.name, name) }) {
                continue
            }
            if index > 0 {
                self.byte(UInt8(ascii: ","))
            }
            self.name(UnsafeBufferPointer(rebasing: raw[name]))
            self.raw(":[")
            var first = true
            for field in fields[index...] where sameName(field.name, name) {
                if !first {
                    self.byte(UInt8(ascii: ","))
                }
                first = false
                self.text(UnsafeBufferPointer(rebasing: raw[field.value]))
            }
            self.byte(UInt8(ascii: "]"))
        }
        self.byte(UInt8(ascii: "}"))
    }

    /// A field name, lower-cased: quoted as it is when it is a token (nearly always), else
    /// through ``text(_:)``.
    private mutating func name(_ name: UnsafeBufferPointer<UInt8>) {
        let isToken = name.allSatisfy {
            $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }
        guard isToken else {
            Array(name.lazy.map(\.asciiLowercased)).withUnsafeBufferPointer { self.text($0) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + 2) { lowered in
            lowered[0] = UInt8(ascii: "\"")
            for index in name.indices {
                lowered[index + 1] = name[index].asciiLowercased
            }
            lowered[name.count + 1] = UInt8(ascii: "\"")
            self.buffer.append(contentsOf: lowered)
        }
    }

    /// A JSON string of header bytes: ASCII escaped as it is, anything else decoded first, which
    /// repairs what is not UTF-8 (``string(utf8:)`` wants valid UTF-8).
    private mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            self.string(utf8: UnsafeRawBufferPointer(bytes))
        } else {
            self.string(String(decoding: bytes, as: UTF8.self))
        }
    }
}
