import BatchFetch
import Foundation

extension DrinkRecord {
    /// The records of a validated JSON array of drink objects, read field by field from its bytes,
    /// or `nil` when a record is not in the shape this reader handles: keys in ``Drink/fieldOrder``
    /// order without unknown or repeated ones, scalar values, a non-empty `idDrink`. The API and
    /// the replica always send that shape; the caller reads anything else through ``Drink``.
    ///
    /// The bytes are the same as ``init(_:)`` writes for the ``Drink`` of each object: a string
    /// without escapes is copied as it is, one with escapes is decoded and written again as
    /// `JSONBytes` escapes it (`\/` becomes `/`, `\u00e9` becomes `é`), and ingredients, measures
    /// and tags are trimmed as ``Drink`` trims them (the `String` path only for non-ASCII ends).
    static func records(in list: UnsafeRawBufferPointer) -> [DrinkRecord]? {
        var reader = DrinkRecordReader(list)
        do throws(FetchError) {
            return try reader.records()
        } catch {
            return nil
        }
    }
}

extension DrinkRecord {
    /// The records of a whole `lookup.php` or `search.php` document in the compact form the API
    /// and the replica send, `{"drinks":[{…},…]}` and nothing else, read and checked in one pass;
    /// `nil` for any other document, which then takes the usual way (the envelope scanner, then
    /// ``records(in:)``): the same records, or the scanner's error.
    ///
    /// A lookup's envelope scan walked every byte once more before the reader did: about a
    /// fifth of a crawl's decoding.
    static func records(document: UnsafeRawBufferPointer) -> [DrinkRecord]? {
        var buffers = DrinkRecordReader.Buffers()
        return Self.records(document: document, buffers: &buffers)
    }

    /// ``records(document:)`` with the reader's buffers lent by the caller, who decodes one
    /// document after another (a crawl's lookups): the buffers keep their capacity, so a lookup
    /// allocates only its record.
    static func records(document: UnsafeRawBufferPointer, buffers: inout DrinkRecordReader.Buffers) -> [DrinkRecord]? {
        let prefix: StaticString = #"{"drinks":["#
        guard let base = document.baseAddress, document.count > prefix.utf8CodeUnitCount + 2,
            memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        else {
            return nil
        }
        var reader = DrinkRecordReader(document, buffers: &buffers)
        defer { reader.giveBack(&buffers) }
        var position = prefix.utf8CodeUnitCount
        var records: [DrinkRecord] = []
        while true {
            guard let end = reader.compact(from: position, checked: true), end < document.count,
                let record = try? reader.normalised()
            else {
                return nil
            }
            records.append(record)
            switch document[end] {
            case UInt8(ascii: ","):
                position = end + 1
            case UInt8(ascii: "]") where end + 2 == document.count && document[end + 1] == UInt8(ascii: "}"):
                return records
            default:
                return nil
            }
        }
    }
}

/// Reads drink objects from validated bytes into ``DrinkRecord``s; see ``DrinkRecord/records(in:)``.
struct DrinkRecordReader {
    /// ``Drink/fieldOrder`` as UTF-8 end to end, and where each key starts (one more offset: the
    /// end), to match keys with raw comparisons instead of Strings.
    static let keyTable: [UInt8] = Drink.fieldOrder.flatMap { Array($0.utf8) }
    static let keyOffsets: [Int] = Drink.fieldOrder.reduce(into: [0]) {
        $0.append($0[$0.count - 1] + $1.utf8.count)
    }
    private static let idField = Drink.fieldOrder.firstIndex(of: "idDrink") ?? 0
    private static let nameField = Drink.fieldOrder.firstIndex(of: "strDrink") ?? 0
    private static let tagsField = Drink.fieldOrder.firstIndex(of: "strTags") ?? 0
    private static let ingredientFields = Drink.ingredientFields.map { Drink.fieldOrder.firstIndex(of: $0) ?? 0 }
    private static let measureFields = Drink.measureFields.map { Drink.fieldOrder.firstIndex(of: $0) ?? 0 }

    /// Thrown (and caught by ``DrinkRecord/records(in:)``) for a record this reader leaves to ``Drink``.
    static let otherShape = FetchError(kind: .unexpectedShape, message: "not the API's record shape")

    var scanner: FlatScanner
    /// Whether the list holds a DEL byte (0x7F), which `JSONBytes` escapes: then no string is
    /// copied as it is. One `memchr` per list instead of a test per string.
    let hasDelete: Bool
    /// The record being written, reused: each record's bytes are copied out at their exact size.
    var json = JSONBytes()
    /// Decoded string content, reused.
    fileprivate var scratch: [UInt8] = []
    /// The fields of the record being read, by position in ``Drink/fieldOrder``.
    var fields: [FlatField?] = []

    init(_ list: UnsafeRawBufferPointer) {
        var buffers = Buffers()
        self.init(list, buffers: &buffers)
    }

    /// A reader of `list` that works in `buffers`, which are empty until ``giveBack(_:)``.
    init(_ list: UnsafeRawBufferPointer, buffers: inout Buffers) {
        self.scanner = FlatScanner(list)
        self.hasDelete = list.baseAddress.map { memchr($0, 0x7F, list.count) != nil } ?? false
        // Moved, not copied: each array stays uniquely referenced, so writing does not copy it.
        swap(&self.json, &buffers.json)
        swap(&self.scratch, &buffers.scratch)
        swap(&self.fields, &buffers.fields)
        if self.fields.count != Drink.fieldOrder.count {
            self.fields = Array(repeating: nil, count: Drink.fieldOrder.count)
        }
        // A record's output is about its input's size plus its ingredients: one allocation for a
        // lookup's single record, then reused for a search's many.
        self.json.buffer.reserveCapacity(min(list.count, 1 << 16) + 1024)
    }

    /// The buffers a reader writes records in, kept between documents by a caller that decodes
    /// many (``DrinkRecord/records(document:buffers:)``).
    struct Buffers {
        fileprivate var json = JSONBytes()
        fileprivate var scratch: [UInt8] = []
        fileprivate var fields: [FlatField?] = []

        init() {}
    }

    /// Returns the buffers to `buffers`, with their capacity, for the next document's reader.
    mutating func giveBack(_ buffers: inout Buffers) {
        swap(&self.json, &buffers.json)
        swap(&self.scratch, &buffers.scratch)
        swap(&self.fields, &buffers.fields)
    }

    mutating func records() throws(FetchError) -> [DrinkRecord] {
        var records: [DrinkRecord] = []
        guard try self.scanner.openArray() else {
            return records
        }
        repeat {
            records.append(try self.record())
        } while try self.scanner.nextObject()
        return records
    }

    private mutating func record() throws(FetchError) -> DrinkRecord {
        let start = self.scanner.offset
        if let end = self.compact(from: start, checked: false) {
            self.scanner.move(to: end)
        } else {
            self.scanner.move(to: start)
            try self.fieldByField()
        }
        return try self.normalised()
    }

    mutating func reset() {
        for index in self.fields.indices {
            self.fields[index] = nil
        }
        self.json.buffer.removeAll(keepingCapacity: true)
        self.json.byte(UInt8(ascii: "{"))
    }

    /// The record from the fields read: their JSON is written; the normalised ingredients and
    /// tags follow.
    mutating func normalised() throws(FetchError) -> DrinkRecord {
        guard let idField = self.fields[Self.idField], !idField.isNull, !idField.value.isEmpty else {
            throw Self.otherShape
        }
        let fieldsEnd = self.json.buffer.count
        self.json.raw(",\"ingredients\":[")
        var count = 0
        for slot in 0..<Self.ingredientFields.count {
            guard let ingredient = self.fields[Self.ingredientFields[slot]], !ingredient.isNull else {
                continue
            }
            let mark = self.json.buffer.count
            self.json.raw(count == 0 ? "{\"name\":" : ",{\"name\":")
            guard self.trimmed(ingredient) else {
                self.json.buffer.removeSubrange(mark...)
                continue
            }
            count += 1
            self.json.raw(",\"measure\":")
            if let measure = self.fields[Self.measureFields[slot]], !measure.isNull, self.trimmed(measure) {
            } else {
                self.json.raw("null")
            }
            self.json.raw("}")
        }
        self.json.raw("],\"tags\":[")
        if let tags = self.fields[Self.tagsField], !tags.isNull {
            self.tags(tags)
        }
        self.json.raw("]}")
        // `Drink.name`: strDrink, "" when absent or null.
        let name = self.fields[Self.nameField].flatMap { $0.isNull ? nil : self.text($0) } ?? ""
        // A copy at the exact size: the scratch buffer keeps its capacity for the next record,
        // and a facet holds thousands of records until it is written.
        let json = self.json.buffer.withUnsafeBufferPointer { Array($0) }
        return DrinkRecord(id: self.text(idField), name: name, json: json, fieldsEnd: fieldsEnd)
    }

    mutating func flush(_ run: Range<Int>?) {
        if let run {
            self.json.raw(UnsafeRawBufferPointer(rebasing: self.scanner.bytes[run]))
        }
    }

    /// The position of `key` in ``Drink/fieldOrder`` at or after `start`: the next key is almost
    /// always the expected one, so this is one comparison per field.
    func match(_ key: Range<Int>, from start: Int) -> Int? {
        Self.keyTable.withUnsafeBytes { table in
            Self.keyOffsets.withUnsafeBufferPointer { offsets in
                self.match(key.lowerBound, length: key.count, from: start, keys: table, offsets: offsets)
            }
        }
    }

    /// The position in ``Drink/fieldOrder``, at or after `start`, of the key whose bytes start at
    /// `keyStart` and run `length` bytes, or are followed by a quote when `length` is `nil`.
    func match(
        _ keyStart: Int, length: Int?, from start: Int, keys: UnsafeRawBufferPointer, offsets: UnsafeBufferPointer<Int>
    ) -> Int? {
        let bytes = self.scanner.bytes
        guard let base = bytes.baseAddress, let table = keys.baseAddress else {
            return nil
        }
        for index in start..<(offsets.count - 1) {
            let size = offsets[index + 1] - offsets[index]
            let fits =
                length.map { $0 == size }
                ?? (keyStart + size < bytes.count && bytes[keyStart + size] == UInt8(ascii: "\""))
            if fits && memcmp(base + keyStart, table + offsets[index], size) == 0 {
                return index
            }
        }
        return nil
    }

    /// A field's value as ``Drink`` keeps it (a string; numbers and booleans as their text) and
    /// `JSONBytes` writes it.
    mutating func value(_ field: FlatField) {
        switch field.kind {
        case .null:
            self.json.raw("null")
        case .literal:
            // Numbers, true and false: no byte of them needs escaping.
            self.json.raw("\"")
            self.json.raw(UnsafeRawBufferPointer(rebasing: self.scanner.bytes[field.value]))
            self.json.raw("\"")
        case .string:
            self.json.string(jsonContent: UnsafeRawBufferPointer(rebasing: self.scanner.bytes[field.value]))
        }
    }

    /// Calls `body` with the field's text: its bytes, or its decoded bytes when it has escapes.
    private mutating func withText(_ field: FlatField, _ body: (inout JSONBytes, UnsafeRawBufferPointer) -> Void) {
        guard field.valueEscaped else {
            body(&self.json, UnsafeRawBufferPointer(rebasing: self.scanner.bytes[field.value]))
            return
        }
        self.scratch.removeAll(keepingCapacity: true)
        self.scanner.unescape(field.value, into: &self.scratch)
        self.scratch.withUnsafeBytes { body(&self.json, $0) }
    }

    /// Writes the field's text trimmed of white space as ``Drink`` trims ingredients and measures,
    /// as a JSON string; writes nothing and returns `false` when nothing is left.
    private mutating func trimmed(_ field: FlatField) -> Bool {
        var written = false
        self.withText(field) { json, text in
            written = Self.writeTrimmed(text, into: &json)
        }
        return written
    }

    private static func writeTrimmed(_ text: UnsafeRawBufferPointer, into json: inout JSONBytes) -> Bool {
        var lower = text.startIndex
        var upper = text.endIndex
        while lower < upper && Self.isASCIISpace(text[lower]) {
            lower += 1
        }
        while upper > lower && Self.isASCIISpace(text[upper - 1]) {
            upper -= 1
        }
        guard lower < upper else {
            return false
        }
        // Printable ASCII at both ends: no Unicode white space is left to trim.
        if (0x21...0x7E).contains(text[lower]) && (0x21...0x7E).contains(text[upper - 1]) {
            json.string(utf8: UnsafeRawBufferPointer(rebasing: text[lower..<upper]))
            return true
        }
        let trimmed = String(decoding: text, as: UTF8.self).trimmingWhiteSpace()
        guard !trimmed.isEmpty else {
            return false
        }
        json.string(trimmed)
        return true
    }

    /// `strTags` split at commas, each trimmed, empty ones dropped, as ``Drink/tags`` does.
    private mutating func tags(_ field: FlatField) {
        self.withText(field) { json, text in
            guard !text.contains(where: { $0 >= 0x80 }) else {
                // Non-ASCII text splits by Character (a comma may carry a combining mark).
                let tags = String(decoding: text, as: UTF8.self).split(separator: ",").map { $0.trimmingWhiteSpace() }
                var first = true
                for tag in tags where !tag.isEmpty {
                    json.raw(first ? "" : ",")
                    first = false
                    json.string(tag)
                }
                return
            }
            var first = true
            var start = text.startIndex
            while start < text.endIndex {
                var end = start
                while end < text.endIndex && text[end] != UInt8(ascii: ",") {
                    end += 1
                }
                let mark = json.buffer.count
                json.raw(first ? "" : ",")
                if Self.writeTrimmed(UnsafeRawBufferPointer(rebasing: text[start..<end]), into: &json) {
                    first = false
                } else {
                    json.buffer.removeSubrange(mark...)
                }
                start = end + 1
            }
        }
    }

    private func text(_ field: FlatField) -> String {
        self.scanner.text(field.value, escaped: field.valueEscaped)
    }

    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
