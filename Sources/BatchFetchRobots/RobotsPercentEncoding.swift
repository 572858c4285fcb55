/// The one normal form in which robots.txt paths and the URLs matched against them are compared
/// (RFC 9309 §2.2.2): octets outside US-ASCII percent-encoded, percent-encoded unreserved characters
/// (letters, digits, `-`, `.`, `_`, `~`, RFC 3986 §2.3) decoded, the hex digits of the escapes that
/// remain in upper case, and a `%` that starts no escape, or an octet a URI cannot hold as it is
/// (space, controls, `` "<>\^`{|} ``), percent-encoded too. Reserved characters keep their encoding, so
/// `%2F` never equals `/`.
///
/// A URL's own `*` and `$` are written `%2A` and `%24` (RFC 9309 §2.2.3: a pattern names them
/// that way, since in a pattern they are the wildcard and the end anchor).
enum RobotsPercentEncoding {
    /// Whether `octets` are already in normal form as a URL path (no `%`, `*`, `$`, non-ASCII octet
    /// or octet a URI cannot hold), the common case that costs no copy.
    static func isNormalPath(_ octets: UnsafeBufferPointer<UInt8>) -> Bool {
        for octet in octets {
            switch octet {
            case UInt8(ascii: "%"), UInt8(ascii: "*"), UInt8(ascii: "$"), 0x80...0xFF, 0x00...0x20, 0x7F,
                UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
                UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return false
            default:
                continue
            }
        }
        return true
    }

    /// Writes the normal form of a URL's path and query into `output` (room for three times the
    /// input) and returns its length.
    static func normalizePath(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>)
        -> Int
    {
        Self.normalize(input, into: output, escapingOperators: true)
    }

    /// The normal form of an `Allow:`/`Disallow:` value: `*` stays the wildcard and a final `$` the
    /// end anchor; a `$` anywhere else is a literal one, written `%24` as in a URL.
    static func normalizePattern(_ input: ArraySlice<UInt8>) -> [UInt8] {
        let input = Array(input)
        return input.withUnsafeBufferPointer { input in
            [UInt8](unsafeUninitializedCapacity: input.count * 3) { output, count in
                count = Self.normalize(input, into: output, escapingOperators: false)
            }
        }
    }

    private static func normalize(
        _ input: UnsafeBufferPointer<UInt8>,
        into output: UnsafeMutableBufferPointer<UInt8>,
        escapingOperators: Bool
    ) -> Int {
        var written = 0
        var index = 0
        func escape(_ octet: UInt8) {
            output[written] = UInt8(ascii: "%")
            output[written + 1] = Self.hexDigits[Int(octet >> 4)]
            output[written + 2] = Self.hexDigits[Int(octet & 0xF)]
            written += 3
        }
        while index < input.count {
            let octet = input[index]
            if octet == UInt8(ascii: "%"), index + 2 < input.count,
                let high = Self.hexValue(input[index + 1]), let low = Self.hexValue(input[index + 2])
            {
                let decoded = high << 4 | low
                if Self.isUnreserved(decoded) {
                    output[written] = decoded
                    written += 1
                } else {
                    escape(decoded)
                }
                index += 3
                continue
            }
            // A `%` that starts no escape is a percent sign, which a URI writes `%25`.
            let isOperator =
                escapingOperators
                ? octet == UInt8(ascii: "*") || octet == UInt8(ascii: "$")
                : octet == UInt8(ascii: "$") && index + 1 < input.count
            if octet >= 0x80 || isOperator || octet == UInt8(ascii: "%") || Self.isOutsideURIs(octet) {
                escape(octet)
            } else {
                output[written] = octet
                written += 1
            }
            index += 1
        }
        return written
    }

    static func hexValue(_ octet: UInt8) -> UInt8? {
        switch octet {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return octet - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return octet - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return octet - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Whether an ASCII octet may not stand in a URI as it is (RFC 3986 §2): controls, space and
    /// `` "<>\^`{|} ``. A robots.txt that writes `Disallow: /a b` means the URL `/a%20b`, the only form in
    /// which a request can carry it.
    static func isOutsideURIs(_ octet: UInt8) -> Bool {
        switch octet {
        case 0x00...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
            UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            return true
        default:
            return false
        }
    }

    static func isUnreserved(_ octet: UInt8) -> Bool {
        switch octet {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

}
