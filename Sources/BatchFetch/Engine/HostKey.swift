/// The key that names a URL's host in host budgets, pauses, health and every per-host table:
/// one host, one key, however the URL spells it. Lower case, an international name in its ASCII
/// form (`bücher.test` and `xn--bcher-kva.test` are one host), no trailing dot, no user info, and
/// the port only when it is not the scheme's default (`http://h:80` is `h`).
///
/// Threading: stateless; call it from any thread.
enum HostKey {
    /// `url`'s host key. Most URLs already spell it so, and get a slice of themselves: no copy.
    static func of(_ url: String) -> Substring {
        let authority = Self.authority(of: url)
        guard Self.needsNormalising(authority, in: url) else {
            return authority
        }
        return Substring(Self.normalised(authority, defaultPort: Self.defaultPort(of: url)))
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

    /// After the first `://`, up to the path, query or fragment; the whole URL without one.
    static func authority(of url: String) -> Substring {
        let bytes = url.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":") {
                let rest = bytes[bytes.index(after: index)...]
                if rest.starts(with: "//".utf8) {
                    let start = bytes.index(index, offsetBy: 3)
                    let end =
                        bytes[start...].firstIndex(where: {
                            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                        }) ?? bytes.endIndex
                    return url[start..<end]
                }
            }
            index = bytes.index(after: index)
        }
        return url[...]
    }

    private static func defaultPort(of url: String) -> Substring? {
        let scheme = url.utf8.prefix(8).lazy.map { $0 | 0x20 }
        if scheme.starts(with: "https://".utf8) {
            return "443"
        }
        return scheme.starts(with: "http://".utf8) ? "80" : nil
    }

    /// Whether `authority` differs from its key: upper case, non-ASCII or %-escaped bytes, user
    /// info, a trailing dot, or the scheme's default port.
    private static func needsNormalising(_ authority: Substring, in url: String) -> Bool {
        var colon: Substring.UTF8View.Index? = nil
        var last: UInt8 = 0
        let bytes = authority.utf8
        for index in bytes.indices {
            let byte = bytes[index]
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            if byte >= 0x80 || isUpper || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "%") {
                return true
            }
            if byte == UInt8(ascii: ":") {
                colon = index
            } else if byte == UInt8(ascii: "]") {
                colon = nil
            }
            last = byte
        }
        guard let colon else {
            return last == UInt8(ascii: ".")
        }
        let port = authority[authority.utf8.index(after: colon)...]
        let host = authority[..<colon]
        return host.utf8.last == UInt8(ascii: ".") || port.isEmpty || port == Self.defaultPort(of: url)
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
