/// The key that names a URL's host in host budgets, pauses, health and every per-host table:
/// one host, one key, however the URL spells it. Lower case, an international name in its ASCII
/// form (`bücher.test` and `xn--bcher-kva.test` are one host), no trailing dot, no user info, and
/// the port only when it is not the scheme's default (`http://h:80` is `h`).
///
/// Threading: stateless; call it from any thread.
enum HostKey {
    /// `url`'s host key. Most URLs already spell it so, and get a slice of themselves: no copy.
    static func of(_ url: String) -> Substring {
        var url = url
        // One pass over the bytes: where the authority is, and whether it needs normalising.
        let (start, end, plain) = url.withUTF8 { Self.scan($0) }
        let utf8 = url.utf8
        let authority = url[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
        guard !plain else {
            return authority
        }
        return Substring(Self.normalised(authority, defaultPort: Self.defaultPort(of: url)))
    }

    /// Where the authority of `bytes` (a URL) starts and ends, and whether it is in normal form
    /// already: no upper case, non-ASCII or %-escaped bytes, user info or trailing dot, and no
    /// port or one that is not the scheme's default.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int, Bool) {
        var start = 0
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
                && bytes[index + 2] == UInt8(ascii: "/")
            {
                start = index + 3
                break
            }
            index += 1
        }
        var plain = true
        var colon = -1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                break
            }
            if byte >= 0x80 || (byte &- UInt8(ascii: "A")) < 26 || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "%")
            {
                plain = false
            } else if byte == UInt8(ascii: ":") {
                colon = end
            } else if byte == UInt8(ascii: "]") {
                colon = -1
            }
            end += 1
        }
        guard plain, end > start else {
            return (start, end, plain)
        }
        let hostEnd = colon >= 0 ? colon : end
        if hostEnd > start && bytes[hostEnd - 1] == UInt8(ascii: ".") {
            return (start, end, false)
        }
        if colon >= 0 {
            let port = UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<end])
            let https = start == 8 && (bytes[4] | 0x20) == UInt8(ascii: "s")
            let isDefault = port.elementsEqual((https ? "443" : "80").utf8)
            return (start, end, !port.isEmpty && !isDefault)
        }
        return (start, end, true)
    }

    /// A host as a rule names it (`--host-rate`): the same form, with a port of 80 or 443 dropped
    /// as a URL's default port is (a rule does not say its scheme).
    static func ofRule(_ host: String) -> String {
        let key = Self.normalised(Substring(host), defaultPort: nil)
        for port in [":80", ":443"] where key.hasSuffix(port) && !key.hasSuffix("]") {
            return String(key.dropLast(port.count))
        }
        return key
    }

    private static func defaultPort(of url: String) -> Substring? {
        let scheme = url.utf8.prefix(8).lazy.map { $0 | 0x20 }
        if scheme.starts(with: "https://".utf8) {
            return "443"
        }
        return scheme.starts(with: "http://".utf8) ? "80" : nil
    }

    private static func normalised(_ authority: Substring, defaultPort: Substring?) -> String {
        var rest = authority
        if let at = rest.lastIndex(of: "@") {
            rest = rest[rest.index(after: at)...]
        }
        var host = rest
        var port: Substring = ""
        if let colon = rest.lastIndex(of: ":"), !rest[colon...].contains("]") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        }
        var name = host.lowercased()
        if !host.hasPrefix("[") {
            if let ascii = try? IDNA.asciiHost(ArraySlice(host.utf8)) {
                name = ascii.lowercased()
            }
            while name.hasSuffix(".") {
                name.removeLast()
            }
        }
        if port.isEmpty || port == defaultPort {
            return name
        }
        return name + ":" + port
    }
}
