/// Whether two records of one index say the same thing: equal bytes once the values of
/// `attempts` and `time_ms` are left out, as they describe the transfer, not its result (a shard
/// run twice differs there and nowhere else).
enum RecordComparison {
    /// Both records are whole lines as `fetch` writes them; their fields up to `body` are fixed
    /// and hold no free text but the URL, a JSON string in which `,"` cannot appear unescaped,
    /// so a field's first occurrence is the field.
    static func sameResult(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        first == second || Self.withoutTransferFields(first) == Self.withoutTransferFields(second)
    }

    private static let leftOut: [[UInt8]] = [Array(",\"attempts\":".utf8), Array(",\"time_ms\":".utf8)]

    static func withoutTransferFields(_ record: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(record.count)
        var position = 0
        for name in Self.leftOut {
            guard let found = Self.firstRange(of: name, in: record, from: position) else {
                continue
            }
            result.append(contentsOf: record[position..<found.upperBound])
            var end = found.upperBound
            while end < record.count && record[end] != UInt8(ascii: ",") && record[end] != UInt8(ascii: "}") {
                end += 1
            }
            position = end
        }
        result.append(contentsOf: record[position...])
        return result
    }

    private static func firstRange(of pattern: [UInt8], in bytes: [UInt8], from start: Int)
        -> Range<Int>?
    {
        guard pattern.count <= bytes.count - start else {
            return nil
        }
        for offset in start...(bytes.count - pattern.count)
        where bytes[offset] == pattern[0] && bytes[offset..<offset + pattern.count].elementsEqual(pattern) {
            return offset..<offset + pattern.count
        }
        return nil
    }
}
