#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An instant to the microsecond, in UTC: a record's `WARC-Date` and a CDXJ line's timestamp.
///
/// WARC 1.1 (§5.4) allows fractions of a second in `WARC-Date`; microseconds keep a request and its
/// response, which share one date, apart from the next exchange with the same URL.
public struct WARCDate: Sendable, Hashable, Comparable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// Microseconds past ``seconds``, 0 to 999,999.
    public let microseconds: Int32

    /// The instant `seconds` and `microseconds` after the Unix epoch; microseconds past a second
    /// carry into ``seconds``.
    public init(seconds: Int64, microseconds: Int32 = 0) {
        let carry = Int64(microseconds).quotientAndRemainder(dividingBy: 1_000_000)
        let wrap: Int64 = carry.remainder < 0 ? 1 : 0
        self.seconds = seconds + carry.quotient - wrap
        self.microseconds = Int32(carry.remainder + wrap * 1_000_000)
    }

    /// The system clock's present instant.
    public static func now() -> WARCDate {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return WARCDate(seconds: Int64(time.tv_sec), microseconds: Int32(time.tv_nsec / 1000))
    }

    /// `2026-11-29T10:00:00.123456Z`: the form of `WARC-Date`.
    public var warcText: String {
        String(decoding: self.warcBytes, as: UTF8.self)
    }

    /// ``warcText``'s bytes.
    var warcBytes: [UInt8] {
        // Digits into a fixed pattern: a record's date is written twice per exchange, and string
        // interpolation cost more than the rest of the record's head.
        var text = Array("0000-00-00T00:00:00.000000Z".utf8)
        var clock = time_t(self.seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        let values: [(value: Int, end: Int, width: Int)] = [
            (Int(parts.tm_year) + 1900, 4, 4), (Int(parts.tm_mon) + 1, 7, 2), (Int(parts.tm_mday), 10, 2),
            (Int(parts.tm_hour), 13, 2), (Int(parts.tm_min), 16, 2), (Int(parts.tm_sec), 19, 2),
            (Int(self.microseconds), 26, 6),
        ]
        for (value, end, width) in values {
            var rest = min(max(value, 0), 999_999)
            for index in stride(from: end - 1, through: end - width, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        return text
    }

    /// `20261129100000`: the 14 digits of a CDX or CDXJ timestamp (whole seconds, as pywb reads).
    public var timestamp14: String {
        String(decoding: self.timestamp14Bytes, as: UTF8.self)
    }

    /// ``timestamp14``'s bytes: ``warcBytes`` without its separators and fraction.
    var timestamp14Bytes: [UInt8] {
        let text = self.warcBytes
        return [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].map { text[$0] }
    }

    public static func < (lhs: WARCDate, rhs: WARCDate) -> Bool {
        (lhs.seconds, lhs.microseconds) < (rhs.seconds, rhs.microseconds)
    }
}
