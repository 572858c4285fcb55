import BatchFetch

/// Parses HTTP dates (RFC 9110 §5.6.7) for cache freshness: `Date`, `Expires`, `Last-Modified`.
///
/// Accepts the IMF-fixdate form every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`) and
/// the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). Anything else is `nil`, which
/// RFC 9111 §5.3 tells a cache to read as a time in the past. Pure; no locale, no time zone.
/// Reads bytes without building Strings: every cache hit parses its `Date`.
enum HTTPDate {
    private static let months: [StaticString] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// Seconds since 1970 (UTC) of `text`, or `nil` when it is not a date in a form above.
    static func parse(_ text: String) -> Int? {
        Self.parse(Array(text.utf8)[...])
    }

    /// Seconds since 1970 (UTC) of the date in `bytes`, or `nil` when it is not one.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Int? {
        // Skip the weekday: everything after the first ",".
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else {
            return nil
        }
        if let seconds = Self.fixdate(bytes[(comma + 1)...]) {
            return seconds
        }
        // The rest as words separated by runs of spaces: `06 Nov 1994 08:49:37 GMT` or
        // `06-Nov-94 08:49:37 GMT`.
        var words: [ArraySlice<UInt8>] = []
        words.reserveCapacity(5)
        for word in bytes[(comma + 1)...].split(separator: UInt8(ascii: " ")) {
            guard words.count < 5 else {
                return nil
            }
            words.append(word)
        }
        guard words.count == 3 || words.count == 5, words[words.count - 1].elementsEqual("GMT".utf8) else {
            return nil
        }
        let day: Int
        let month: Int
        var year: Int
        if words.count == 5 {
            guard let d = Self.integer(words[0]), let m = Self.month(words[1]), words[2].count == 4,
                let y = Self.integer(words[2])
            else {
                return nil
            }
            (day, month, year) = (d, m, y)
        } else {
            let fields = words[0].split(separator: UInt8(ascii: "-"))
            guard fields.count == 3, let d = Self.integer(fields[0]), let m = Self.month(fields[1]),
                let y = Self.integer(fields[2])
            else {
                return nil
            }
            // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
            year = y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y
            (day, month) = (d, m)
        }
        let clock = words[words.count - 2].split(separator: UInt8(ascii: ":"))
        guard clock.count == 3, let hour = Self.integer(clock[0]), let minute = Self.integer(clock[1]),
            let second = Self.integer(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...9999).contains(year)
        else {
            return nil
        }
        return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The exact IMF-fixdate layout after the weekday's comma, ` 06 Nov 1994 08:49:37 GMT`, read
    /// by position: what servers send, and what every cache hit parses (its `Date`). `nil` when
    /// the text has any other layout (the general path then reads it).
    private static func fixdate(_ rest: ArraySlice<UInt8>) -> Int? {
        guard rest.count == 25 else {
            return nil
        }
        let base = rest.startIndex
        func at(_ offset: Int) -> UInt8 { rest[base + offset] }
        func digits(_ offset: Int, _ count: Int) -> Int? {
            var value = 0
            for index in offset..<(offset + count) {
                let byte = at(index)
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                    return nil
                }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let space = UInt8(ascii: " ")
        let colon = UInt8(ascii: ":")
        guard at(0) == space, at(3) == space, at(7) == space, at(12) == space, at(21) == space,
            at(15) == colon, at(18) == colon, rest[(base + 22)...].elementsEqual("GMT".utf8),
            let day = digits(1, 2), let month = Self.month(rest[(base + 4)..<(base + 7)]),
            let year = digits(8, 4), let hour = digits(13, 2), let minute = digits(16, 2),
            let second = digits(19, 2),
            (1...31).contains(day), hour <= 23, minute <= 59, second <= 60, year >= 1
        else {
            return nil
        }
        return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Seconds since 1970 of a UTC date and time.
    private static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        var year = year
        // Days from civil (Howard Hinnant's algorithm), March-based years.
        year -= month <= 2 ? 1 : 0
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// A decimal integer with an optional sign, as `Int(_:)` reads one: `nil` for anything else
    /// and for a value out of `Int`'s range.
    static func integer(_ bytes: ArraySlice<UInt8>) -> Int? {
        var digits = bytes
        var negative = false
        if let first = digits.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else {
            return nil
        }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                return nil
            }
            // Accumulated negatively, so Int.min reads as Int(_:) reads it.
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow && !overflow2 else {
                return nil
            }
            value = next
        }
        if negative {
            return value
        }
        return value == Int.min ? nil : -value
    }

    private static func month(_ name: ArraySlice<UInt8>) -> Int? {
        Self.months.firstIndex { name.isASCIICaseInsensitive($0) }.map { $0 + 1 }
    }
}
