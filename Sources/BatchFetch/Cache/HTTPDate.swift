/// Parses HTTP dates (RFC 9110 §5.6.7) for cache freshness: `Date`, `Expires`, `Last-Modified`.
///
/// Accepts the IMF-fixdate form every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`) and
/// the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). Anything else is `nil`, which
/// RFC 9111 §5.3 tells a cache to read as a time in the past. Pure; no locale, no time zone.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970 (UTC) of `text`, or `nil` when it is not a date in a form above.
    static func parse(_ text: String) -> Int? {
        // Skip the weekday: everything after the first ", ".
        guard let comma = text.firstIndex(of: ",") else {
            return nil
        }
        let rest = text[text.index(after: comma)...].trimmingPrefixSpaces()
        let parts = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 || parts.count == 5, parts.last == "GMT" else {
            return nil
        }
        let day: Int
        let month: Int
        var year: Int
        if parts.count == 5 {
            guard let d = Int(parts[0]), let m = Self.month(parts[1]), let y = Int(parts[2]), parts[2].count == 4
            else {
                return nil
            }
            (day, month, year) = (d, m, y)
        } else {
            let fields = parts[0].split(separator: "-")
            guard fields.count == 3, let d = Int(fields[0]), let m = Self.month(fields[1]), let y = Int(fields[2])
            else {
                return nil
            }
            // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
            year = y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y
            (day, month) = (d, m)
        }
        let clock = parts[parts.count - 2].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...9999).contains(year)
        else {
            return nil
        }
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

    private static func month(_ name: Substring) -> Int? {
        Self.months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }
}

extension Substring {
    fileprivate func trimmingPrefixSpaces() -> Substring {
        self.drop(while: { $0 == " " })
    }
}
