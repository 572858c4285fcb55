/// The SURT form of a URL (Sort-friendly URI Reordering Transform): the search key of CDX and CDXJ
/// lines, as the Internet Archive's `surt` package (which pywb and cdxj-indexer use) makes it with
/// its default canonicalizer.
///
/// `http://www.Example.com:80/Path/?b=2&a=1#top` becomes `com,example)/path?a=1&b=2`: the scheme,
/// user information, default port and fragment dropped; the host lowercased, without a leading
/// `www.` (or `www2.`, …) or trailing dots, its labels reversed and joined by commas; path and
/// query percent-decoded until stable, then bytes outside printable ASCII, `#` and `%` escaped
/// again, dot segments and repeated slashes removed, lowercased; a path's trailing slash dropped
/// (but not the root's); the query's arguments sorted; an empty query dropped.
///
/// Not done, as URLs from the engine do not need them: `surt`'s removal of session ids
/// (`jsessionid=…`) and its rewriting of numeric or octal IPv4 hosts. A pure function.
public enum SURT {
    /// The SURT key of `url`; `url` itself when it has no `scheme://` authority.
    public static func key(_ url: String) -> String {
        var rest = Substring(url.filter { $0 != "\t" && $0 != "\r" && $0 != "\n" })
        guard let schemeEnd = rest.firstRange(of: "://") else {
            return url
        }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        rest = rest[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let (host, port) = Self.hostAndPort(rest[..<authorityEnd])
        rest = rest[authorityEnd...]
        var path = rest
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        }
        var key = Self.reversedHost(host)
        if let port, port != (scheme == "https" ? "443" : scheme == "http" ? "80" : "") {
            key += ":" + port
        }
        key += ")" + Self.canonicalPath(path)
        if let query {
            let canonical = Self.canonicalQuery(query)
            if !canonical.isEmpty {
                key += "?" + canonical
            }
        }
        return key
    }

    private static func hostAndPort(_ authority: Substring) -> (host: String, port: String?) {
        var hostPort = authority
        if let at = hostPort.lastIndex(of: "@") {
            hostPort = hostPort[hostPort.index(after: at)...]
        }
        var port: String?
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            let inside = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":"), after.count > 1 {
                port = String(after.dropFirst())
            }
            return (inside.lowercased(), port)
        }
        if let colon = hostPort.lastIndex(of: ":") {
            let digits = hostPort[hostPort.index(after: colon)...]
            port = digits.isEmpty ? nil : String(digits)
            hostPort = hostPort[..<colon]
        }
        return (hostPort.lowercased(), port)
    }

    private static func reversedHost(_ host: String) -> String {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        while labels.last?.isEmpty == true {
            labels.removeLast()
        }
        if let first = labels.first, labels.count > 1, first.hasPrefix("www"),
            first.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber })
        {
            labels.removeFirst()
        }
        return labels.reversed().joined(separator: ",")
    }

    private static func canonicalPath(_ path: Substring) -> String {
        let bytes = Self.minimalEscape(Array(path.utf8))
        var segments: [ArraySlice<UInt8>] = []
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        for part in parts {
            if part.elementsEqual(".".utf8) {
                continue
            }
            if part.elementsEqual("..".utf8) {
                _ = segments.popLast()
                continue
            }
            segments.append(part)
        }
        var out: [UInt8] = [UInt8(ascii: "/")]
        for (index, segment) in segments.enumerated() {
            out += segment
            if index < segments.count - 1 {
                out.append(UInt8(ascii: "/"))
            }
        }
        // A trailing slash goes (surt's path_strip_trailing_slash_unless_empty), so no re-adding.
        return String(decoding: Self.lowercased(out), as: UTF8.self)
    }

    private static func canonicalQuery(_ query: Substring) -> String {
        let bytes = Self.lowercased(Self.minimalEscape(Array(query.utf8)))
        guard bytes.count > 1 else {
            return String(decoding: bytes, as: UTF8.self)
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
        return String(decoding: Array(joined.joined(separator: [UInt8(ascii: "&")])), as: UTF8.self)
    }

    /// Percent-decodes until nothing changes, then escapes bytes outside printable ASCII, `#` and
    /// `%` (surt's `minimalEscape`).
    private static func minimalEscape(_ input: [UInt8]) -> [UInt8] {
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
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }
}
