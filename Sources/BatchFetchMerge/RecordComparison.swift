import BatchFetch

/// Whether two records of one index say the same thing: equal bytes once the values of
/// `attempts`, `time_ms` and `total_ms` are left out, and `shared_with` altogether, as they
/// describe the transfer, not its result (a shard run twice differs there and nowhere else;
/// whether a repeated line shares a transfer depends on what else was in flight).
enum RecordComparison {
    /// Both records are whole lines as `fetch` writes them; their fields up to `body` are fixed
    /// and hold no free text but the URL, a JSON string in which `,"` cannot appear unescaped,
    /// so a field's first occurrence is the field.
    static func sameResult(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        first == second || Self.withoutTransferFields(first) == Self.withoutTransferFields(second)
    }

    private static let attempts = Array(",\"attempts\":".utf8)
    /// Only on copies of another record, right before `attempts`.
    private static let sharedWith = Array(",\"shared_with\":".utf8)
    private static let time = Array(",\"time_ms\":".utf8)
    /// Right after `time_ms`.
    private static let total = Array(",\"total_ms\":".utf8)

    static func withoutTransferFields(_ record: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(record.count)
        var position = 0
        if let found = Self.firstRange(of: Self.attempts, in: record, from: 0) {
            var kept = found.lowerBound
            var digits = kept
            while digits > 0 && record[digits - 1] >= UInt8(ascii: "0") && record[digits - 1] <= UInt8(ascii: "9") {
                digits -= 1
            }
            if digits >= Self.sharedWith.count
                && record[(digits - Self.sharedWith.count)..<digits].elementsEqual(Self.sharedWith)
            {
                kept = digits - Self.sharedWith.count
            }
            result.append(contentsOf: record[..<kept])
            result.append(contentsOf: Self.attempts)
            position = Self.endOfValue(in: record, from: found.upperBound)
        }
        if let found = Self.firstRange(of: Self.time, in: record, from: position) {
            result.append(contentsOf: record[position..<found.upperBound])
            position = Self.endOfValue(in: record, from: found.upperBound)
            if record[position...].starts(with: Self.total) {
                result.append(contentsOf: Self.total)
                position = Self.endOfValue(in: record, from: position + Self.total.count)
            }
        }
        result.append(contentsOf: record[position...])
        return result
    }

    /// Where the number or literal that starts at `start` ends.
    private static func endOfValue(in record: [UInt8], from start: Int) -> Int {
        var end = start
        while end < record.count && record[end] != UInt8(ascii: ",") && record[end] != UInt8(ascii: "}") {
            end += 1
        }
        return end
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
