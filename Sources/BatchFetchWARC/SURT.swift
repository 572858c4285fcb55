import BatchFetch

/// The SURT form of a URL (Sort-friendly URI Reordering Transform): the search key of CDX and CDXJ
/// lines, as the Internet Archive's `surt` package (which pywb and cdxj-indexer use) makes it with
/// its default canonicalizer.
///
/// `http://www.Example.com:80/Path/?b=2&a=1#top` becomes `com,example)/path?a=1&b=2`: the scheme,
/// user information, default port and fragment dropped; the host lowercased, without a leading
/// `www.` (or `www2.`, …) or trailing dots, its labels reversed and joined by commas; path and
/// query percent-decoded until stable, then bytes outside printable ASCII, `#` and `%` escaped
/// again, dot segments and repeated slashes removed as surt's `normalizePath` does (a `..` above
/// the root kept), lowercased; a path's trailing slash dropped (but not the root's); the query's
/// arguments sorted; an empty query dropped.
///
/// A host outside ASCII takes its IDNA form (UTS 46 here, IDNA 2003 in surt: they differ on a
/// few letters such as ß). Not done, as URLs from the engine do not need them: `surt`'s removal
/// of session ids (`jsessionid=…`) and its rewriting of numeric or octal IPv4 hosts. A pure
/// function.
public enum SURT {
    /// The SURT key of `url`; `url` itself when it has no `scheme://` authority.
    public static func key(_ url: String) -> String {
        String(decoding: Self.keyBytes(url), as: UTF8.self)
    }

    /// ``key(_:)``'s bytes.
    static func keyBytes(_ url: String) -> [UInt8] {
        var url = url
        if let key = url.withUTF8({ Self.plainKey($0) }) {
            return key
        }
        return Self.generalKeyBytes(url)
    }

    /// ``keyBytes(_:)`` without the fast path for plain URLs (which tests compare with this).
    static func generalKeyBytes(_ url: String) -> [UInt8] {
        // Tabs and line breaks go first, as surt drops them.
        let bytes = url.utf8.filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        return bytes.withUnsafeBufferPointer { Self.key(bytes: $0) } ?? Array(url.utf8)
    }

    /// ``key(_:)`` over a URL's bytes; `nil` when it has no `scheme://`.
    private static func key(bytes url: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let schemeEnd = Self.firstIndex(of: Array("://".utf8), in: url[...]) else {
            return nil
        }
        let scheme = url[..<schemeEnd]
        var rest = url[(schemeEnd + 3)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            rest = rest[..<hash]
        }
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        var hostPort = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = hostPort.lastIndex(of: UInt8(ascii: "@")) {
            hostPort = hostPort[(at + 1)...]
        }
        var host = hostPort
        var port: Slice<UnsafeBufferPointer<UInt8>>?
        if hostPort.first == UInt8(ascii: "["), let close = hostPort.firstIndex(of: UInt8(ascii: "]")) {
            host = hostPort[(hostPort.startIndex + 1)..<close]
            let after = hostPort[(close + 1)...]
            if after.first == UInt8(ascii: ":"), after.count > 1 {
                port = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) {
            let digits = hostPort[(colon + 1)...]
            port = digits.isEmpty ? nil : digits
            host = hostPort[..<colon]
        }
        // A host outside ASCII in its ASCII form (punycode), as surt's IDNA encoding gives it and
        // the engine sends it; one that has none, lowercased as Unicode.
        var lowerHost = Self.lowercased(Array(host))
        if !host.allSatisfy({ $0 < 0x80 }) {
            let ascii = try? IDNA.asciiHost(Array(host)[...])
            lowerHost = Self.lowercased(Array((ascii ?? String(decoding: host, as: UTF8.self).lowercased()).utf8))
        }
        var key = Self.reversedHost(lowerHost)
        if let port {
            let lowerScheme = Self.lowercased(Array(scheme))
            let https = lowerScheme.elementsEqual("https".utf8)
            let standard = https ? "443" : lowerScheme.elementsEqual("http".utf8) ? "80" : ""
            if !port.elementsEqual(standard.utf8) {
                key.append(UInt8(ascii: ":"))
                key += port
            }
        }
        key.append(UInt8(ascii: ")"))
        let mark = rest.firstIndex(of: UInt8(ascii: "?"))
        key += Self.canonicalPath(Array(rest[..<(mark ?? rest.endIndex)]))
        if let mark {
            let canonical = Self.canonicalQuery(Array(rest[(mark + 1)...]))
            if !canonical.isEmpty {
                key.append(UInt8(ascii: "?"))
                key += canonical
            }
        }
        return key
    }

    /// Where `needle` first starts in `bytes`.
    private static func firstIndex(of needle: [UInt8], in bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard bytes.count >= needle.count else {
            return nil
        }
        for start in bytes.startIndex...(bytes.endIndex - needle.count)
        where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// `host`'s labels reversed and joined by commas, without trailing empty labels or a leading
    /// `www`, `www2`, … (bytes of ASCII, lowercased already).
    private static func reversedHost(_ host: [UInt8]) -> [UInt8] {
        var labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        while labels.last?.isEmpty == true {
            labels.removeLast()
        }
        if let first = labels.first, labels.count > 1, first.starts(with: "www".utf8),
            first.dropFirst(3).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        {
            labels.removeFirst()
        }
        return Array(labels.reversed().joined(separator: [UInt8(ascii: ",")]))
    }

    private static func canonicalPath(_ path: [UInt8]) -> [UInt8] {
        let bytes = Self.minimalEscape(path)
        guard !bytes.isEmpty else {
            return [UInt8(ascii: "/")]
        }
        // surt's normalizePath: what precedes the first slash goes; `.` goes; `..` takes back the
        // last segment kept (an empty one too, from `//`), or is kept itself above the root.
        var kept: [ArraySlice<UInt8>] = []
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            if part.elementsEqual(".".utf8) {
                continue
            }
            if part.elementsEqual("..".utf8) {
                if kept.isEmpty {
                    kept.append(part)
                } else {
                    kept.removeLast()
                }
                continue
            }
            kept.append(part)
        }
        // Joined with empty segments left out, except a last one (a trailing slash), which
        // path_strip_trailing_slash_unless_empty then takes off, the root's apart.
        var out: [UInt8] = [UInt8(ascii: "/")]
        for part in kept.dropLast() where !part.isEmpty {
            out += part
            out.append(UInt8(ascii: "/"))
        }
        out += kept.last ?? []
        if out.count > 1 && out.last == UInt8(ascii: "/") {
            out.removeLast()
        }
        return Self.lowercased(out)
    }

    private static func canonicalQuery(_ query: [UInt8]) -> [UInt8] {
        let bytes = Self.lowercased(Self.minimalEscape(query))
        guard bytes.count > 1 else {
            return bytes
        }
        let arguments = bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { argument in
            let parts = argument.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (key: Array(parts[0]), value: parts.count > 1 ? Array(parts[1]) : nil)
        }
        // Sorted as Python sorts the tuples (key,) and (key, value): by key, a bare key first.
        let sorted = arguments.sorted { lhs, rhs in
            if lhs.key != rhs.key {
                return lhs.key.lexicographicallyPrecedes(rhs.key)
            }
            switch (lhs.value, rhs.value) {
            case (nil, .some): return true
            case (.some(let left), .some(let right)): return left.lexicographicallyPrecedes(right)
            default: return false
            }
        }
        let joined = sorted.map { argument in
            argument.value.map { value in argument.key + [UInt8(ascii: "=")] + value } ?? argument.key
        }
        return Array(joined.joined(separator: [UInt8(ascii: "&")]))
    }

    /// Percent-decodes until nothing changes, then escapes bytes outside printable ASCII, `#` and
    /// `%` (surt's `minimalEscape`).
    private static func minimalEscape(_ input: [UInt8]) -> [UInt8] {
        // Most paths and queries have no escape and nothing to escape: as they are.
        if !input.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") }) {
            return input
        }
        var bytes = input
        while true {
            let decoded = Self.percentDecoded(bytes)
            if decoded == bytes {
                break
            }
            bytes = decoded
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%") {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                out.append(byte)
            }
        }
        return out
    }

    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = Self.hexValue(bytes[index + 1]), let low = Self.hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map(\.asciiLowercased)
    }
}
