import Foundation

/// Parses a `Retry-After` header value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
///
/// - Parameters:
///   - value: the header value.
///   - now: the current wall-clock time, for HTTP-dates.
/// - Returns: the delay from `now` (zero for a date in the past), or `nil` when the value is neither form.
func parseRetryAfter(_ value: String, now: Date) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
        // Absurdly long digit strings saturate instead of overflowing.
        guard let seconds = Int64(trimmed) else {
            return .seconds(Int64.max / 1_000_000_000)
        }
        return .seconds(seconds)
    }
    guard let date = parseHTTPDate(trimmed) else {
        return nil
    }
    let delta = date.timeIntervalSince(now)
    return delta > 0 ? .milliseconds(Int64((delta * 1000).rounded(.up))) : .zero
}

/// Parses the three HTTP-date forms recipients must accept (RFC 9110 §5.6.7): IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
/// `Sun Nov  6 08:49:37 1994`. Hand-written because DateFormatter is slow and locale-sensitive.
func parseHTTPDate(_ text: String) -> Date? {
    let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    func month(_ name: Substring) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }
    func time(_ hms: Substring) -> (Int, Int, Int)? {
        let parts = hms.split(separator: ":")
        guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let s = Int(parts[2]),
            (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        return (h, m, s)
    }
    let fields = text.split(whereSeparator: { $0 == " " })
    var components: (year: Int, month: Int, day: Int, time: (Int, Int, Int))?
    if fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT",
        let day = Int(fields[1]), let mon = month(fields[2]), let year = Int(fields[3]), let t = time(fields[4])
    {
        components = (year, mon, day, t)
    } else if fields.count == 4, fields[0].hasSuffix(","), fields[3] == "GMT" {
        let dmy = fields[1].split(separator: "-")
        if dmy.count == 3, let day = Int(dmy[0]), let mon = month(dmy[1]), let yy = Int(dmy[2]), let t = time(fields[2])
        {
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            components = (yy < 100 ? (yy < 70 ? 2000 + yy : 1900 + yy) : yy, mon, day, t)
        }
    } else if fields.count == 5, let mon = month(fields[1]), let day = Int(fields[2]), let t = time(fields[3]),
        let year = Int(fields[4])
    {
        components = (year, mon, day, t)
    }
    guard let c = components, (1...31).contains(c.day), (1970...9999).contains(c.year) else {
        return nil
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let dateComponents = DateComponents(
        year: c.year, month: c.month, day: c.day, hour: c.time.0, minute: c.time.1, second: c.time.2
    )
    return calendar.date(from: dateComponents)
}
