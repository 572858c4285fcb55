import BatchFetch
import Foundation

/// Reading a record's fields: the compact form the API sends, with raw comparisons, and any
/// other flat form with ``FlatScanner``, field by field. Both write the fields' JSON and fill
/// `fields`; ``DrinkRecordReader/normalised()`` then adds ingredients and tags.
extension DrinkRecordReader {
    /// Reads a record in the compact form the API and the replica send (`{"key":value,…}` with
    /// no white space, keys in ``Drink/fieldOrder`` order, values strings or null) with raw
    /// loads and comparisons: ~50 fields a record made the general scanner's per-field steps a
    /// third of a crawl's decoding. Returns the offset after the record, or `nil` at anything
    /// else (the record is then read again by ``fieldByField()``). The skipped spaces before the
    /// record and any white space inside it are left to the general path.
    ///
    /// With `checked`, the bytes need not be validated: strings are checked as the scanner checks
    /// them (``FlatScanner/checkedStringEnd(in:from:)``) and `null` letter by letter.
    mutating func compact(from position: Int, checked: Bool) -> Int? {
        Self.keyTable.withUnsafeBytes { table in
            Self.keyOffsets.withUnsafeBufferPointer { offsets in
                self.compact(from: position, checked: checked, keys: table, offsets: offsets)
            }
        }
    }

    private mutating func compact(
        from position: Int, checked: Bool, keys: UnsafeRawBufferPointer, offsets: UnsafeBufferPointer<Int>
    ) -> Int? {
        self.reset()
        let bytes = self.scanner.bytes
        let count = bytes.count
        guard let base = bytes.baseAddress else {
            return nil
        }
        var p = position
        guard p < count, bytes[p] == UInt8(ascii: "{") else {
            return nil
        }
        p += 1
        var next = 0
        var run: Range<Int>? = nil
        while true {
            guard p < count, bytes[p] == UInt8(ascii: "\"") else {
                return nil
            }
            let keyStart = p + 1
            // The expected key, or one further on (older records leave fields out).
            guard let index = self.match(keyStart, length: nil, from: next, keys: keys, offsets: offsets) else {
                return nil
            }
            let keyEnd = keyStart + offsets[index + 1] - offsets[index]
            let valueStart = keyEnd + 2
            guard valueStart < count, bytes[keyEnd + 1] == UInt8(ascii: ":") else {
                return nil
            }
            let field: FlatField
            let end: Int
            switch bytes[valueStart] {
            case UInt8(ascii: "n"):
                end = valueStart + 4
                guard !checked || (end <= count && memcmp(base + valueStart, "null", 4) == 0) else {
                    return nil
                }
                field = FlatField(
                    key: keyStart..<keyEnd, keyEscaped: false, value: valueStart..<end, valueEscaped: false, kind: .null
                )
            case UInt8(ascii: "\""):
                let found =
                    checked
                    ? FlatScanner.checkedStringEnd(in: bytes, from: valueStart + 1)
                    : FlatScanner.stringEnd(in: bytes, from: valueStart + 1)
                guard let (close, escaped) = found else {
                    return nil
                }
                end = close + 1
                field = FlatField(
                    key: keyStart..<keyEnd, keyEscaped: false, value: (valueStart + 1)..<close, valueEscaped: escaped,
                    kind: .string)
            default:
                return nil
            }
            self.fields[index] = field
            next = index + 1
            if field.isNull || (!field.valueEscaped && !self.hasDelete) {
                // Extend the run of such fields (their commas included).
                if let current = run {
                    run = current.lowerBound..<end
                } else {
                    if self.json.buffer.count > 1 {
                        self.json.byte(UInt8(ascii: ","))
                    }
                    run = p..<end
                }
            } else {
                self.flush(run)
                run = nil
                if self.json.buffer.count > 1 {
                    self.json.byte(UInt8(ascii: ","))
                }
                self.json.raw(UnsafeRawBufferPointer(rebasing: bytes[p..<valueStart]))
                self.json.string(jsonContent: UnsafeRawBufferPointer(rebasing: bytes[field.value]))
            }
            guard end < count else {
                return nil
            }
            p = end + 1
            if bytes[end] == UInt8(ascii: "}") {
                self.flush(run)
                return p
            }
            guard bytes[end] == UInt8(ascii: ",") else {
                return nil
            }
        }
    }

    /// Reads a record of any flat shape with ``FlatScanner``, field by field.
    mutating func fieldByField() throws(FetchError) {
        self.reset()
        guard try self.scanner.openObject() else {
            throw Self.otherShape
        }
        var next = 0
        // Most fields come out as they came in: `"key":value` runs, commas included, are copied
        // in one piece each, and only fields that need writing again (escapes, literals) break them.
        var run: Range<Int>? = nil
        repeat {
            let field = try self.scanner.field()
            guard !field.keyEscaped, let index = self.match(field.key, from: next) else {
                throw Self.otherShape
            }
            next = index + 1
            self.fields[index] = field
            let start = field.key.lowerBound - 1
            if let span = self.verbatim(field) {
                if let current = run, current.upperBound + 1 == start,
                    self.scanner.bytes[current.upperBound] == UInt8(ascii: ",")
                {
                    run = current.lowerBound..<span.upperBound
                    continue
                }
                self.flush(run)
                run = span
                if self.json.buffer.count > 1 {
                    self.json.byte(UInt8(ascii: ","))
                }
                continue
            }
            self.flush(run)
            run = nil
            if self.json.buffer.count > 1 {
                self.json.byte(UInt8(ascii: ","))
            }
            self.json.raw(UnsafeRawBufferPointer(rebasing: self.scanner.bytes[start...field.key.upperBound]))
            self.json.byte(UInt8(ascii: ":"))
            self.value(field)
        } while try self.scanner.nextField()
        self.flush(run)
    }

    /// The field's bytes, from the key's opening quote to the value's end, when they are already
    /// what ``value(_:)`` would write after `"key":` (a string without escapes, or null), with
    /// nothing between the tokens.
    private func verbatim(_ field: FlatField) -> Range<Int>? {
        let start = field.key.lowerBound - 1
        switch field.kind {
        case .null where field.value.lowerBound == field.key.upperBound + 2:
            return start..<field.value.upperBound
        case .string where !field.valueEscaped && !self.hasDelete && field.value.lowerBound == field.key.upperBound + 3:
            return start..<(field.value.upperBound + 1)
        default:
            return nil
        }
    }
}
