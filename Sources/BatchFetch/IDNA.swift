import Foundation

/// International host names in the ASCII form a request carries (IDNA): `exämple.test` is sent as
/// `xn--exmple-cua.test`, as curl sends it; the record keeps the URL as given.
///
/// Done here rather than left to libcurl: libcurl converts through libidn2's `idn2_lookup_ul`,
/// which reads the name in the process's locale, and a process that never called `setlocale`
/// (this library's hosts; the `curl` tool calls it) runs in the C locale, where every non-ASCII
/// name fails as `CURLE_URL_MALFORMAT`; a libcurl built without libidn2 has no conversion at all.
/// Each label that is not ASCII is mapped as UTS 46 maps most names (compatibility-normalised,
/// NFKC, so full-width letters become ASCII as in curl, then lower-cased) and encoded with
/// ``Punycode`` under `xn--`; ASCII labels are left as they are, and so are the path and query,
/// which libcurl sends as it sends curl's.
///
/// Threading: stateless; call it from any thread.
package enum IDNA {
    /// `url` with its host in ASCII form, or `nil` when the host is ASCII already (every URL
    /// without a byte over 0x7F answers that after one pass of 8-byte words, allocating nothing).
    /// - Throws: ``FetchError/Kind/invalidURL`` when a label has no ASCII form.
    static func asciiURL(_ url: String) throws(FetchError) -> String? {
        var url = url
        // Where the host is, only for a URL with a byte over 0x7F somewhere; `nil` otherwise.
        let host = url.withUTF8 { bytes -> Range<Int>? in
            guard Self.hasNonASCII(UnsafeRawBufferPointer(bytes)), let host = Self.hostRange(in: bytes),
                bytes[host].contains(where: { $0 >= 0x80 })
            else {
                return nil
            }
            return host
        }
        guard let host else {
            return nil
        }
        let bytes = Array(url.utf8)
        return String(decoding: bytes[..<host.lowerBound], as: UTF8.self) + (try Self.asciiHost(bytes[host]))
            + String(decoding: bytes[host.upperBound...], as: UTF8.self)
    }

    /// Whether any byte is over 0x7F: eight bytes at a time, their high bits or-ed together.
    static func hasNonASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var seen: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            seen |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            seen |= UInt64(bytes[offset])
            offset += 1
        }
        return seen & 0x8080_8080_8080_8080 != 0
    }

    /// Where the host of an absolute URL is: after `scheme://` and any user info, before any port,
    /// path, query or fragment; `nil` for an IP literal in brackets, which is never converted.
    private static func hostRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return nil
        }
        let start = colon + 3
        let end =
            bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        let hostStart = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? start
        guard hostStart < end, bytes[hostStart] != UInt8(ascii: "[") else {
            return nil
        }
        return hostStart..<(bytes[hostStart..<end].firstIndex(of: UInt8(ascii: ":")) ?? end)
    }

    /// Label separators UTS 46 maps to a full stop: the ideographic, full-width and half-width ones.
    private static let fullStops: Set<Unicode.Scalar> = [".", "\u{3002}", "\u{FF0E}", "\u{FF61}"]

    /// The ASCII form of a host name given as UTF-8, percent-escapes decoded first as libcurl
    /// decodes them in a host.
    package static func asciiHost(_ bytes: ArraySlice<UInt8>) throws(FetchError) -> String {
        guard let host = String(validating: Self.percentDecoded(bytes), as: UTF8.self) else {
            throw FetchError(kind: .invalidURL, message: "host name is not UTF-8 once its %-escapes are decoded")
        }
        var labels: [String] = []
        var label = String.UnicodeScalarView()
        for scalar in host.unicodeScalars {
            if Self.fullStops.contains(scalar) {
                labels.append(try Self.asciiLabel(String(label), host: host))
                label = String.UnicodeScalarView()
            } else {
                label.append(scalar)
            }
        }
        labels.append(try Self.asciiLabel(String(label), host: host))
        return labels.joined(separator: ".")
    }

    /// One label's ASCII form, with IDNA 2008's hyphen rules and DNS's 63-byte limit, which libidn2
    /// (and so curl) applies too.
    private static func asciiLabel(_ label: String, host: String) throws(FetchError) -> String {
        guard label.unicodeScalars.contains(where: { !$0.isASCII }) else {
            return label
        }
        let mapped = label.precomposedStringWithCompatibilityMapping.lowercased()
        func refuse(_ reason: String) -> FetchError {
            FetchError(
                kind: .invalidURL, message: "host '\(host)' has no ASCII form (IDNA): label '\(label)' \(reason)")
        }
        if mapped.unicodeScalars.contains(where: { Self.fullStops.contains($0) }) {
            throw refuse("maps to more than one label ('\(mapped)')")
        }
        if mapped.unicodeScalars.allSatisfy(\.isASCII) {
            return mapped
        }
        let scalars = Array(mapped.unicodeScalars)
        if mapped.hasPrefix("xn--") {
            throw refuse("starts with 'xn--' but is not ASCII")
        }
        if scalars.first == "-" || scalars.last == "-" {
            throw refuse("starts or ends with '-'")
        }
        if scalars.count >= 4 && scalars[2] == "-" && scalars[3] == "-" {
            throw refuse("has '--' in its third and fourth places")
        }
        guard let encoded = Punycode.encode(scalars) else {
            throw refuse("is too long to encode")
        }
        let ascii = "xn--" + encoded
        guard ascii.utf8.count <= 63 else {
            throw refuse("is \(ascii.utf8.count) bytes long in ASCII form (\(ascii)), over the 63 of a DNS label")
        }
        return ascii
    }

    /// `bytes` with each `%XX` escape decoded; a `%` not followed by two hex digits stays.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = Self.hexValue(bytes[index + 1]), let low = Self.hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
